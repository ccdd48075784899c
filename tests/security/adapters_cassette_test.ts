// Issue 24, item 24: cassettes and transports share one credential-name rule. Values under
// credential-named keys (strings or not) and credential headers leave no trace in a
// cassette, and a stdio server's credential environment variables are redacted the same way.
import { createClient } from "../../client/client.ts";
import { mockServer, record } from "../../testing/mod.ts";
import { envSecrets } from "../../transports/_redact.ts";
import { assert, test } from "../_harness.ts";

const KEYS = [
  "authToken",
  "auth_token",
  "sessionToken",
  "GITHUB_TOKEN",
  "x-auth-token",
  "privateKey",
  "secretKey",
  "AWS_SECRET_ACCESS_KEY",
  "passphrase",
  "jwt",
];

test("item 24: a cassette redacts every credential-named key, non-string values, and header values", async () => {
  const server = mockServer({
    tools: [{ name: "echo", inputSchema: { type: "object" }, handler: () => "ok" }],
  });
  const recording = record(server.transport());
  const args: Record<string, unknown> = {};
  KEYS.forEach((key, i) => (args[key] = `value-${i}-s3cr3tv4lu3`));
  args.nested = { apiKey: { id: "obj-s3cr3tv4lu3" }, pin: 1 };
  args.privateKeyNumber = 918273645;
  args.headers = { "X-Auth-Token": "hdr-s3cr3tv4lu3", accept: "text/plain" };
  args.headerList = [["x-auth-token", "lst-s3cr3tv4lu3"], ["accept", "text/plain"]];
  {
    await using client = createClient({ transport: recording });
    await client.callTool("echo", args);
  }
  const cassette = recording.cassette();
  assert(!cassette.includes("s3cr3tv4lu3"), cassette);
  assert(!cassette.includes("918273645"), cassette);
  assert(cassette.includes("text/plain") && cassette.includes("[redacted]"), cassette);
});

test("item 24: a stdio server's credential variables are redacted by the same rule", () => {
  const env: Record<string, string> = {};
  KEYS.forEach((key, i) => (env[key] = `env-value-${i}-secret`));
  const secrets = envSecrets(env);
  for (const value of Object.values(env)) {
    assert(!secrets.text(`echo ${value}`).includes(value), value);
  }
});

// The one allow-list for challenge data, and the redaction of a transport's credentials
// from what its links hand to the client (table-first, no network).

import { assert, assertEquals, test } from "../_harness.ts";
import { McpError } from "../../protocol/errors.ts";
import { describeChallenge, safeChallenge } from "../../transports/challenge_summary.ts";
import { authError } from "../../transports/_http_auth_error.ts";
import { recordingFetch } from "../../oauth/recording_fetch.ts";
import { guardLink, guardSink } from "../../transports/_redact.ts";
import { createSecrets, heldSecrets, REDACTED } from "../../protocol/secrets.ts";
import { streamableHttp } from "../../transports/streamable_http.ts";
import { tokenObserversOf } from "../../protocol/token_events.ts";
import type { JsonRpcMessage } from "../../protocol/jsonrpc.ts";
import type { TransportLink } from "../../transports/transport.ts";

const TOKEN = "tok_Reflect-9f8e7d6c5b4a";

test("challenge allow-list: only the scheme, error, scope and resource_metadata, strictly shaped", () => {
  const rows: [string, string][] = [
    [`Bearer realm="${TOKEN}"`, "Bearer"],
    [`Bearer error_description="${TOKEN}", error="invalid_token"`, 'Bearer error="invalid_token"'],
    [`Bearer token_hint="${TOKEN}", hint="x", foo="y"`, "Bearer"],
    ['Bearer error="bad value with spaces"', "Bearer"],
    ['Bearer error="quote\\"d"', "Bearer"],
    ['Bearer scope="a  b"', 'Bearer scope="a b"'],
    ['Bearer scope="a\\\\b"', "Bearer"],
    [`Bearer scope="${"s ".repeat(40)}"`, "Bearer"],
    [
      'Bearer resource_metadata="https://u:p@h.test/prm?t=1#f"',
      'Bearer resource_metadata="https://h.test/prm"',
    ],
    ['Bearer resource_metadata="javascript:alert(1)"', "Bearer"],
    [`${"X".repeat(40)} error="e"`, "no WWW-Authenticate challenge"],
    [`Bearer error="a", DPoP error="${TOKEN}"`, 'Bearer error="a"'],
  ];
  for (const [header, expected] of rows) {
    assertEquals(describeChallenge(safeChallenge(header)), expected, header);
  }
});

test("challenge allow-list: auth errors use it, message and data alike", () => {
  const response = new Response(null, {
    status: 401,
    headers: {
      "www-authenticate": `Bearer realm="${TOKEN}", error_description="${TOKEN}", ` +
        `x_token="${TOKEN}", error="invalid_token", scope="read"`,
    },
  });
  const error = authError(response, "the request");
  assert(!error.message.includes(TOKEN), error.message);
  assertEquals(error.data, {
    status: 401,
    challenge: { scheme: "Bearer", params: { error: "invalid_token", scope: "read" } },
  });
});

test("secrets: every known form of a credential is redacted, clipped ones too", () => {
  const secrets = createSecrets();
  assert(secrets.empty);
  assertEquals(secrets.text(`a ${TOKEN}`), `a ${TOKEN}`, "nothing known: as is");
  secrets.add("short"); // too short to be told from ordinary text
  assert(secrets.empty);
  secrets.add(TOKEN, true);
  secrets.add("s3cr3t+/=value");
  const rows: [string, string][] = [
    [`Bearer ${TOKEN}!`, `Bearer ${REDACTED}!`],
    [`${TOKEN}${TOKEN}`, `${REDACTED}${REDACTED}`],
    ["x s3cr3t%2B%2F%3Dvalue", `x ${REDACTED}`],
    [`preview: "${TOKEN.slice(0, 12)}…"`, `preview: "${REDACTED}…"`],
    [`ends with ${TOKEN.slice(0, 10)}`, `ends with ${REDACTED}`],
    [`${TOKEN.slice(0, 10)} in the middle`, `${TOKEN.slice(0, 10)} in the middle`],
    ["nothing here", "nothing here"],
  ];
  for (const [input, expected] of rows) assertEquals(secrets.text(input), expected, input);
});

test("secrets: values are copied only where they hold a credential", () => {
  const secrets = createSecrets();
  secrets.add(TOKEN);
  const clean = { a: [1, "x", { b: null }] };
  assert(secrets.value(clean) === clean, "the same value when clean");
  const dirty = { keep: clean, list: ["ok", `t=${TOKEN}`], [TOKEN]: 1 };
  const out: Record<string, unknown> = secrets.value(dirty);
  assertEquals(out, { keep: clean, list: ["ok", `t=${REDACTED}`], [REDACTED]: 1 });
  assert(out.keep === clean, "clean branches are shared");
  assertEquals(dirty.list[1], `t=${TOKEN}`, "the input is left alone");
});

test("secrets: errors are redacted along the cause chain, in message, stack and data", () => {
  const secrets = createSecrets();
  secrets.add(TOKEN);
  const root = new Error(`fetch failed for ${TOKEN}`);
  const middle = new McpError(`middle ${TOKEN}`, { kind: "auth", data: { h: TOKEN }, cause: root });
  const top = new McpError("top", { kind: "transport", cause: middle, data: [TOKEN] });
  assert(secrets.error(top) === top, "redacted in place");
  let text = "";
  for (let e: unknown = top; e instanceof Error; e = e.cause) {
    text += `${e.message}\n${e.stack}\n${JSON.stringify((e as McpError).data)}\n`;
  }
  assert(!text.includes(TOKEN), text);
  assertEquals(middle.data, { h: REDACTED });
  assertEquals(secrets.error(`thrown ${TOKEN}`), `thrown ${REDACTED}`);
});

test("secrets: configured credentials outlive many seen ones", () => {
  const secrets = createSecrets();
  secrets.add("configured-secret", true);
  for (let i = 0; i < 300; i++) secrets.add(`proof-${i}-abcdefgh`);
  assertEquals(secrets.text("configured-secret"), REDACTED);
  assertEquals(secrets.text("proof-299-abcdefgh"), REDACTED);
  assertEquals(secrets.text("proof-0-abcdefgh"), "proof-0-abcdefgh", "old proofs are forgotten");
});

test("secrets: a recording fetch remembers the credentials each request carries", async () => {
  const secrets = createSecrets();
  const f = recordingFetch(() => Promise.resolve(new Response("ok")), secrets);
  await f("http://x.test/mcp", { headers: { authorization: `Bearer ${TOKEN}` } });
  await f("http://x.test/token", {
    method: "POST",
    headers: new Headers({
      authorization: `Basic ${btoa("app:client%2Bsecret-1")}`,
      dpop: "eyJhbGciOiJFUzI1NiJ9.proof.sig",
    }),
    body: new URLSearchParams({ grant_type: "refresh_token", refresh_token: "rt-123456789" }),
  });
  await f("http://x.test/token", {
    method: "POST",
    headers: [["Content-Type", "application/x-www-form-urlencoded"]],
    body: "code=code-abcdefgh&code_verifier=verifier-abcdefgh&client_id=app-public",
  });
  await f("http://x.test/mcp", { method: "POST", body: '{"code":"not-a-form-123"}' });
  const text = secrets.text(
    `${TOKEN} client+secret-1 eyJhbGciOiJFUzI1NiJ9.proof.sig rt-123456789 code-abcdefgh ` +
      "verifier-abcdefgh app-public not-a-form-123",
  );
  assertEquals(text, `${Array(6).fill(REDACTED).join(" ")} app-public not-a-form-123`);
});

test("secrets: a guarded link redacts messages, warnings, the closing error, rejections and probes", async () => {
  const secrets = createSecrets();
  secrets.add(TOKEN);
  const got: unknown[] = [];
  const sink = guardSink({
    message: (m) => got.push(m),
    closed: (e) => got.push(e.message),
    warn: (w) => got.push(w),
  }, secrets);
  const error: JsonRpcMessage = {
    jsonrpc: "2.0",
    id: 1,
    error: { code: -32000, message: `bad ${TOKEN}`, data: { auth: `Bearer ${TOKEN}` } },
  };
  sink.message(error);
  sink.warn!(`skipped "${TOKEN}"`);
  sink.closed(new McpError(`exited: ${TOKEN}`, { kind: "transport" }));
  const inner: TransportLink = {
    send: () => Promise.reject(new McpError(`refused ${TOKEN}`, { kind: "auth" })),
    setProtocol() {},
    probe: () =>
      Promise.resolve({
        status: 401,
        contentType: "text/plain",
        body: new TextEncoder().encode(`no ${TOKEN}`),
        challenge: `Bearer scope="${TOKEN}"`,
      }),
    close: () => Promise.resolve(),
  };
  const link = guardLink(inner, secrets);
  const rejected = await link.send(error).then(() => undefined, (e: McpError) => e.message);
  const probed = await link.probe!({ jsonrpc: "2.0", id: 2, method: "server/discover" });
  got.push(rejected, probed.challenge, new TextDecoder().decode(probed.body));
  assert(!JSON.stringify(got).includes(TOKEN), JSON.stringify(got));
  assertEquals(got.length, 6);
});

test("secrets: an HTTP transport makes its own on first need, with every credential it held", async () => {
  const transport = streamableHttp("https://mcp.example.com/mcp", {
    headers: { "X-Api-Key": "key-0123456789" },
    auth: { bearer: "first-0123456789" },
  });
  transport.setAuth({ bearer: "second-0123456789" });
  const secrets = await heldSecrets(transport);
  assert(secrets !== undefined, "the transport holds its secrets");
  assertEquals(
    secrets.text("key-0123456789 first-0123456789 second-0123456789"),
    `${REDACTED} ${REDACTED} ${REDACTED}`,
  );
  assert(await heldSecrets(transport) === secrets, "they are made once");
  assert(tokenObserversOf(transport) instanceof Set, "its token observers are held too");
  transport.setAuth({ bearer: "third-0123456789" });
  assertEquals(secrets.text("third-0123456789"), REDACTED);
});

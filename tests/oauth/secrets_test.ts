// No token, secret or code reaches an error (message, data, cause chain, stack) or the
// console, on any failure path of the OAuth middleware.

import { assert, assertEquals, test } from "../_harness.ts";
import { type OAuthFixtureKnobs, startOAuthFixture } from "../fixtures/oauth_server.ts";
import { withClientCredentials, withOAuth } from "../../oauth/middleware.ts";
import { memoryTokenStore } from "../../oauth/store.ts";

const CLIENT_SECRET = "client-secret-Zq81";
const follow = async (url: URL) => {
  const response = await fetch(url, { redirect: "manual" });
  await response.body?.cancel();
  return new URL(response.headers.get("location")!, url).href;
};

/** Everything an error exposes, as text: message, stack, data, and the same for its causes. */
function exposed(error: unknown, depth = 0): string {
  if (depth > 5 || error === undefined || error === null) return "";
  if (!(error instanceof Error)) return String(error);
  const e = error as Error & { data?: unknown };
  let data = "";
  try {
    data = JSON.stringify(e.data ?? null);
  } catch {
    data = String(e.data);
  }
  return [e.name, e.message, e.stack ?? "", data, String(error), exposed(e.cause, depth + 1)].join(
    "\n",
  );
}

function captureConsole(): { lines: string[]; restore(): void } {
  const lines: string[] = [];
  const saved = { ...console };
  for (const level of ["log", "info", "warn", "error", "debug", "trace"] as const) {
    console[level] = (...args: unknown[]) => lines.push(args.map(String).join(" "));
  }
  return {
    lines,
    restore: () => Object.assign(console, saved),
  };
}

const FAILURES: [string, OAuthFixtureKnobs, "oauth" | "credentials"][] = [
  ["iss mismatch", { iss: "wrong", clients: { app: CLIENT_SECRET } }, "oauth"],
  ["denied", { denyWith: "access_denied", clients: { app: CLIENT_SECRET } }, "oauth"],
  ["token refused (resource)", {
    resource: "http://127.0.0.1:1/mcp",
    clients: { app: CLIENT_SECRET },
  }, "oauth"],
  ["metadata issuer mismatch", {
    metadataIssuer: "https://attacker.example.com",
    clients: { app: CLIENT_SECRET },
  }, "oauth"],
  ["client credentials refused", { clients: { app: "another-secret" } }, "credentials"],
];

for (const [name, knobs, kind] of FAILURES) {
  test(`secrets: nothing leaks when ${name}`, async () => {
    await using as = await startOAuthFixture({ dcr: false, ...knobs });
    const console = captureConsole();
    let failure: unknown;
    try {
      const middleware = kind === "oauth"
        ? withOAuth({
          redirectUri: "http://127.0.0.1:9/cb",
          client: { clientId: "app", clientSecret: CLIENT_SECRET },
          onAuthorizationUrl: follow,
        })
        : withClientCredentials({ clientId: "app", clientSecret: CLIENT_SECRET });
      await middleware((i, init) => fetch(i, init))(as.url, { method: "POST", body: "{}" });
    } catch (error) {
      failure = error;
    } finally {
      console.restore();
    }
    assert(failure !== undefined, "expected a failure");
    const text = exposed(failure);
    for (const secret of [CLIENT_SECRET, ...as.secrets()]) {
      assert(!text.includes(secret), `"${secret}" leaked into: ${text.slice(0, 500)}`);
    }
    // (Deno prints a one-time notice about Deno.serve from the fixture's side.)
    assertEquals(
      console.lines.filter((l) => !l.startsWith("Deno.serve:")),
      [],
      "nothing is logged",
    );
  });
}

test("secrets: tokens from a successful flow never appear in a later failure", async () => {
  await using as = await startOAuthFixture({ clients: { app: CLIENT_SECRET }, dcr: false });
  const store = memoryTokenStore();
  const middleware = withOAuth({
    store,
    redirectUri: "http://127.0.0.1:9/cb",
    client: { clientId: "app", clientSecret: CLIENT_SECRET },
    onAuthorizationUrl: follow,
  });
  const f = middleware((i, init) => fetch(i, init));
  assertEquals((await f(as.url, { method: "POST", body: "{}" })).status, 200);
  // Now everything breaks: tokens revoked, the next authorization is refused.
  as.revokeAccessTokens();
  as.revokeRefreshTokens();
  as.knobs.iss = "wrong";
  let failure: unknown;
  try {
    await f(as.url, { method: "POST", body: "{}" });
  } catch (error) {
    failure = error;
  }
  const text = exposed(failure);
  assert(as.secrets().length >= 3);
  for (const secret of [CLIENT_SECRET, ...as.secrets()]) {
    assert(!text.includes(secret), `"${secret}" leaked`);
  }
});

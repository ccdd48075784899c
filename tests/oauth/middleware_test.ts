// The OAuth middleware against a real mock authorization server and protected MCP resource
// (Hono on 127.0.0.1:0): the whole flow, single-flight authorization and refresh, step-up,
// iss checks, migration, pre-registered clients, restarts, the callback paths.

import { assert, assertEquals, assertRejects, test } from "../_harness.ts";
import { startOAuthFixture } from "../fixtures/oauth_server.ts";
import { handleCallback } from "../../oauth/handle_callback.ts";
import { withOAuth } from "../../oauth/middleware.ts";
import type { OAuthOptions } from "../../oauth/options.ts";
import { memoryTokenStore } from "../../oauth/store.ts";
import { loopbackCallback } from "../../oauth/callback.ts";
import { McpError } from "../../protocol/errors.ts";

const REDIRECT = "http://127.0.0.1:9/callback";
const plainFetch = (input: Request | URL | string, init?: RequestInit) => fetch(input, init);

/** The "browser": follows the authorization endpoint's redirect and returns its Location. */
async function follow(url: URL): Promise<string> {
  const response = await fetch(url, { redirect: "manual" });
  await response.body?.cancel();
  return new URL(response.headers.get("location")!, url).href;
}

function options(extra: Partial<OAuthOptions> = {}): OAuthOptions & { urls: URL[] } {
  const urls: URL[] = [];
  const o: OAuthOptions = {
    redirectUri: REDIRECT,
    onAuthorizationUrl: (url) => {
      urls.push(url);
      return follow(url);
    },
    ...extra,
  };
  // Not an option: hidden from the options check, which refuses unknown keys.
  return Object.defineProperty(o, "urls", { value: urls, enumerable: false }) as
    & OAuthOptions
    & { urls: URL[] };
}

function rpc(method: string, id = 1, params: Record<string, unknown> = {}): RequestInit {
  return {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id, method, params }),
  };
}

async function reason(promise: Promise<unknown>): Promise<string | undefined> {
  try {
    await promise;
  } catch (error) {
    assert(error instanceof McpError, `expected an McpError, got ${error}`);
    return error.reason;
  }
  throw new Error("expected a rejection");
}

test("oauth: a 401 runs discovery, registration, authorization and the code exchange once", async () => {
  await using as = await startOAuthFixture({ challengeScope: "mcp:read" });
  const o = options();
  const f = withOAuth(o)(plainFetch);
  const response = await f(as.url, rpc("tools/list"));
  assertEquals(response.status, 200);
  assertEquals((await response.json()).result.method, "tools/list");
  assertEquals(as.count("/register"), 1);
  assertEquals(as.count("/authorize"), 1);
  assertEquals(as.count("/token"), 1);
  const authorize = as.requests.find((r) => r.path === "/authorize")!;
  assertEquals(authorize.params.code_challenge_method, "S256");
  assertEquals(authorize.params.resource, as.url.href);
  assertEquals(authorize.params.scope, "mcp:read");
  const token = as.requests.find((r) => r.path === "/token")!;
  assertEquals(token.params.resource, as.url.href);
  assert(token.params.code_verifier.length >= 43, "a PKCE verifier");
  // Later requests reuse the token.
  assertEquals((await f(as.url, rpc("ping", 2))).status, 200);
  assertEquals(as.count("/token"), 1);
  assertEquals(o.urls.length, 1);
});

test("oauth: 10 concurrent first requests share one authorization", async () => {
  await using as = await startOAuthFixture({ tokenDelay: 50 });
  const o = options();
  const f = withOAuth(o)(plainFetch);
  const responses = await Promise.all(
    Array.from({ length: 10 }, (_, i) => f(as.url, rpc("tools/list", i))),
  );
  assertEquals(responses.map((r) => r.status), Array(10).fill(200));
  assertEquals(as.count("/authorize"), 1);
  assertEquals(as.count("/token"), 1);
  assertEquals(o.urls.length, 1);
});

test("oauth: 10 concurrent 401s cause one refresh, and rotated refresh tokens are kept", async () => {
  await using as = await startOAuthFixture({ tokenDelay: 30 });
  const f = withOAuth(options())(plainFetch);
  assertEquals((await f(as.url, rpc("tools/list"))).status, 200);
  for (const round of [1, 2]) {
    as.revokeAccessTokens();
    const responses = await Promise.all(
      Array.from({ length: 10 }, (_, i) => f(as.url, rpc("tools/call", i))),
    );
    assertEquals(responses.map((r) => r.status), Array(10).fill(200));
    assertEquals(
      as.count("/token", (r) => r.params.grant_type === "refresh_token"),
      round,
      `one refresh in round ${round}`,
    );
  }
  assertEquals(as.count("/authorize"), 1);
});

test("oauth: expired tokens are refreshed before sending, once for 10 concurrent calls", async () => {
  await using as = await startOAuthFixture({ tokenDelay: 30 });
  let offset = 0;
  const f = withOAuth(options({ now: () => Date.now() + offset }))(plainFetch);
  assertEquals((await f(as.url, rpc("tools/list"))).status, 200);
  offset = 2 * 3600_000;
  const responses = await Promise.all(
    Array.from({ length: 10 }, (_, i) => f(as.url, rpc("tools/call", i))),
  );
  assertEquals(responses.map((r) => r.status), Array(10).fill(200));
  assertEquals(as.count("/token", (r) => r.params.grant_type === "refresh_token"), 1);
  assertEquals(
    as.count("/mcp", (r) => r.authorization === undefined),
    1,
    "only the first went bare",
  );
});

test("oauth: a refused refresh is needs_reauth at once, never a silent login; login() starts one", async () => {
  await using as = await startOAuthFixture();
  const o = options();
  const oauth = withOAuth(o);
  const f = oauth(plainFetch);
  assertEquals(oauth.authStatus().state, "none");
  assertEquals((await f(as.url, rpc("tools/list"))).status, 200);
  assertEquals(oauth.authStatus().state, "ok");
  as.revokeAccessTokens();
  as.revokeRefreshTokens();
  assertEquals(await reason(f(as.url, rpc("tools/list", 2))), "needs_reauth");
  assertEquals(oauth.authStatus().state, "needs_reauth");
  assertEquals(as.count("/authorize"), 1, "no login started by the refresh");
  // Requests now fail at once: nothing reaches either server.
  const before = as.requests.length;
  for (let i = 0; i < 5; i++) {
    assertEquals(await reason(f(as.url, rpc("ping", 3 + i))), "needs_reauth");
  }
  assertEquals(as.requests.length, before, "no request was sent while needs_reauth");
  assertEquals(as.count("/token", (r) => r.params.grant_type === "refresh_token"), 1);
  await oauth.login();
  assertEquals(oauth.authStatus().state, "ok");
  assertEquals(as.count("/authorize"), 2);
  assertEquals(o.urls.length, 2);
  assertEquals((await f(as.url, rpc("tools/list", 9))).status, 200);
});

test("oauth: step-up on 403 insufficient_scope asks for the union of scopes", async () => {
  await using as = await startOAuthFixture({
    challengeScope: "mcp:read",
    callScopes: ["mcp:write"],
  });
  const f = withOAuth(options())(plainFetch);
  assertEquals((await f(as.url, rpc("tools/list"))).status, 200);
  assertEquals((await f(as.url, rpc("tools/call", 2, { name: "write" }))).status, 200);
  const scopes = as.requests.filter((r) => r.path === "/authorize").map((r) => r.params.scope);
  assertEquals(scopes, ["mcp:read", "mcp:read mcp:write"]);
});

test("oauth: a 403 step-up joins only a token flight for the same scopes", async () => {
  await using as = await startOAuthFixture({
    challengeScope: "base",
    methodScopes: { "tools/call": ["base", "a"], "resources/read": ["base", "b"] },
  });
  let forbidden = 0;
  const counting = async (input: Request | URL | string, init?: RequestInit) => {
    const response = await plainFetch(input, init);
    if (response.status === 403) forbidden++;
    return response;
  };
  const urls: URL[] = [];
  const f = withOAuth(options({
    maxStepUps: 1,
    onAuthorizationUrl: async (url) => {
      urls.push(url);
      // The first step-up lands only once both 403s are back, so they overlap its flight.
      while (urls.length > 1 && forbidden < 2) await new Promise((r) => setTimeout(r, 2));
      await new Promise((r) => setTimeout(r, 0));
      return follow(url);
    },
  }))(counting);
  assertEquals((await f(as.url, rpc("tools/list"))).status, 200);
  const [call, read] = await Promise.all([
    f(as.url, rpc("tools/call", 2, { name: "x" })),
    f(as.url, rpc("resources/read", 3, { uri: "file:///x" })),
  ]);
  // With one step-up each, joining the other's flight would have left one of them at 403.
  assertEquals([call.status, read.status], [200, 200]);
  const scopes = as.requests.filter((r) => r.path === "/authorize").map((r) => r.params.scope);
  assertEquals(scopes.length, 3, "the first authorization and one step-up each");
  assertEquals(scopes[0], "base");
  assertEquals(new Set(scopes[2].split(" ")), new Set(["base", "a", "b"]), "the union");
});

test("oauth: step-up stops after maxStepUps and returns the 403", async () => {
  await using as = await startOAuthFixture({ callScopes: ["admin"], dropScopes: ["admin"] });
  const f = withOAuth(options({ maxStepUps: 2 }))(plainFetch);
  const response = await f(as.url, rpc("tools/call", 1, { name: "x" }));
  assertEquals(response.status, 403);
  assertEquals(as.count("/authorize"), 3, "the first authorization and two step-ups");
  // The operation stays failed: calling it again does not start more authorizations …
  assertEquals((await f(as.url, rpc("tools/call", 2, { name: "x" }))).status, 403);
  assertEquals(as.count("/authorize"), 3);
  // … while another operation still may step up once it needs to.
  assertEquals((await f(as.url, rpc("tools/list", 3))).status, 200);
});

test("oauth: offline_access only when the authorization server lists it", async () => {
  await using as = await startOAuthFixture({
    scopesSupported: ["mcp:basic"],
    serverScopes: ["mcp:basic", "offline_access"],
  });
  await withOAuth(options())(plainFetch)(as.url, rpc("ping"));
  assertEquals(
    as.requests.find((r) => r.path === "/authorize")!.params.scope,
    "mcp:basic offline_access",
  );
  as.knobs.serverScopes = ["mcp:basic"];
  await withOAuth(options())(plainFetch)(as.url, rpc("ping"));
  assertEquals(as.requests.filter((r) => r.path === "/authorize")[1].params.scope, "mcp:basic");
  as.knobs.scopesSupported = undefined;
  await withOAuth(options())(plainFetch)(as.url, rpc("ping"));
  assertEquals(as.requests.filter((r) => r.path === "/authorize")[2].params.scope, undefined);
});

const ISS_CASES: {
  name: string;
  iss: "correct" | "wrong" | "normalized" | "omit";
  advertised: boolean;
  reason?: string;
}[] = [
  { name: "advertised and correct", iss: "correct", advertised: true },
  { name: "not advertised and absent", iss: "omit", advertised: false },
  { name: "not advertised but correct", iss: "correct", advertised: false },
  { name: "advertised but missing", iss: "omit", advertised: true, reason: "iss_missing" },
  { name: "wrong", iss: "wrong", advertised: true, reason: "iss_mismatch" },
  { name: "wrong and not advertised", iss: "wrong", advertised: false, reason: "iss_mismatch" },
  { name: "trailing slash only", iss: "normalized", advertised: true, reason: "iss_mismatch" },
];

for (const c of ISS_CASES) {
  test(`oauth: RFC 9207 iss ${c.name} → ${c.reason ?? "accepted"}`, async () => {
    await using as = await startOAuthFixture({ iss: c.iss, issAdvertised: c.advertised });
    const f = withOAuth(options())(plainFetch);
    if (c.reason === undefined) {
      assertEquals((await f(as.url, rpc("ping"))).status, 200);
    } else {
      assertEquals(await reason(f(as.url, rpc("ping"))), c.reason);
      assertEquals(as.count("/token"), 0, "the code is never exchanged");
    }
  });
}

test("oauth: metadata for another issuer is refused before any endpoint is used", async () => {
  await using as = await startOAuthFixture({ metadataIssuer: "https://attacker.example.com" });
  assertEquals(
    await reason(withOAuth(options())(plainFetch)(as.url, rpc("ping"))),
    "issuer_mismatch",
  );
  assertEquals(as.count("/register") + as.count("/authorize") + as.count("/token"), 0);
});

test("oauth: protected resource metadata for another resource is refused", async () => {
  await using as = await startOAuthFixture({ resource: "https://evil.example.com/mcp" });
  assertEquals(
    await reason(withOAuth(options())(plainFetch)(as.url, rpc("ping"))),
    "resource_mismatch",
  );
  assertEquals(as.count("/authorize"), 0);
});

test("oauth: no PKCE S256 in the metadata → refused", async () => {
  await using as = await startOAuthFixture({ pkce: false });
  assertEquals(
    await reason(withOAuth(options())(plainFetch)(as.url, rpc("ping"))),
    "pkce_unsupported",
  );
  assertEquals(as.count("/authorize"), 0);
});

test("oauth: an error in the authorization response is reported", async () => {
  await using as = await startOAuthFixture({ denyWith: "access_denied" });
  assertEquals(
    await reason(withOAuth(options())(plainFetch)(as.url, rpc("ping"))),
    "authorization_denied",
  );
});

test("oauth: metadata from well-known URLs when the challenge names none, at a path issuer", async () => {
  await using as = await startOAuthFixture({
    challengeMetadata: false,
    prm: "root",
    issuerPath: "/tenant1",
  });
  assertEquals((await withOAuth(options())(plainFetch)(as.url, rpc("ping"))).status, 200);
  const gets = as.requests.filter((r) => r.method === "GET" && r.path.startsWith("/.well-known"))
    .map((r) => r.path);
  assertEquals(gets, [
    "/.well-known/oauth-protected-resource/mcp",
    "/.well-known/oauth-protected-resource",
    "/.well-known/oauth-authorization-server/tenant1",
  ]);
  assertEquals(as.requests.find((r) => r.path === "/tenant1/token")?.params.resource, as.url.href);
});

test("oauth: a pre-registered client is used with its secret, and refused at another issuer", async () => {
  await using as = await startOAuthFixture({ dcr: false, clients: { "my-app": "my-secret" } });
  const f = withOAuth(options({ client: { clientId: "my-app", clientSecret: "my-secret" } }))(
    plainFetch,
  );
  assertEquals((await f(as.url, rpc("ping"))).status, 200);
  const token = as.requests.find((r) => r.path === "/token")!;
  assertEquals(token.authorization, `Basic ${btoa("my-app:my-secret")}`);
  assertEquals(as.count("/register"), 0);

  const bound = withOAuth(options({
    client: { clientId: "my-app", clientSecret: "my-secret", issuer: "https://other.example.com" },
  }))(plainFetch);
  assertEquals(await reason(bound(as.url, rpc("ping"))), "client_mismatch");
});

test("oauth: after an authorization server migration, the client registers again there", async () => {
  await using as1 = await startOAuthFixture();
  await using as2 = await startOAuthFixture({ resource: as1.url.href }, { access: as1.access });
  const store = memoryTokenStore();
  const f = withOAuth(options({ store }))(plainFetch);
  assertEquals((await f(as1.url, rpc("ping"))).status, 200);
  const oldClient = (await store.getClient(as1.issuer()))!.clientId;
  // The resource moves to AS2 and forgets AS1's tokens.
  as1.knobs.authorizationServers = [as2.issuer()];
  as1.access.clear();
  assertEquals((await f(as1.url, rpc("ping", 2))).status, 200);
  assertEquals(as2.count("/register"), 1);
  assert(
    !as2.requests.some((r) =>
      r.params.client_id === oldClient || r.authorization?.includes(btoa(oldClient))
    ),
    "AS1's client id never reaches AS2",
  );
  assert(
    !as2.requests.some((r) => r.params.grant_type === "refresh_token"),
    "no refresh with AS1's token",
  );
});

test("oauth: a new middleware on the same store reuses the tokens without a login", async () => {
  await using as = await startOAuthFixture();
  const store = memoryTokenStore();
  const first = options({ store });
  assertEquals((await withOAuth(first)(plainFetch)(as.url, rpc("ping"))).status, 200);
  const second = options({ store });
  assertEquals((await withOAuth(second)(plainFetch)(as.url, rpc("ping"))).status, 200);
  assertEquals(second.urls.length, 0);
  assertEquals(as.count("/authorize"), 1);
  // Another principal on the same store logs in for itself.
  const bob = options({ store, principal: "bob" });
  assertEquals((await withOAuth(bob)(plainFetch)(as.url, rpc("ping"))).status, 200);
  assertEquals(bob.urls.length, 1);
});

test("oauth: handleCallback() completes an authorization the host received", async () => {
  await using as = await startOAuthFixture();
  const urls: URL[] = [];
  const oauth = withOAuth({
    redirectUri: REDIRECT,
    onAuthorizationUrl: (url) => void urls.push(url),
  });
  const pending = oauth(plainFetch)(as.url, rpc("ping"));
  while (urls.length === 0) await new Promise((r) => setTimeout(r, 5));
  await oauth.handleCallback(await follow(urls[0]));
  assertEquals((await pending).status, 200);
  await assertRejects(() => oauth.handleCallback(`${REDIRECT}?code=x&state=unknown`), McpError);
});

test("oauth: authorized() resumes a waiting request once the host stored tokens", async () => {
  await using as = await startOAuthFixture();
  const store = memoryTokenStore();
  const urls: URL[] = [];
  const oauth = withOAuth({
    store,
    redirectUri: REDIRECT,
    onAuthorizationUrl: (url) => void urls.push(url),
  });
  const pending = oauth(plainFetch)(as.url, rpc("ping"));
  while (urls.length === 0) await new Promise((r) => setTimeout(r, 5));
  // A separate web server (sharing the store) handles the redirect and wakes the client.
  await handleCallback(await follow(urls[0]), {
    store,
    mcpClient: { authorized: () => oauth.authorized() },
  });
  assertEquals((await pending).status, 200);
  assertEquals(as.count("/token"), 1);
});

test("oauth: the loopback callback receives the browser's redirect", async () => {
  await using as = await startOAuthFixture();
  const oauth = withOAuth({
    callback: loopbackCallback(),
    // The "browser" follows every redirect, into the loopback server.
    onAuthorizationUrl: async (url) => {
      const page = await fetch(url);
      assertEquals(page.status, 200);
      await page.body?.cancel();
    },
  });
  assertEquals((await oauth(plainFetch)(as.url, rpc("ping"))).status, 200);
  const redirect = as.requests.find((r) => r.path === "/authorize")!.params.redirect_uri;
  assert(redirect.startsWith("http://127.0.0.1:") && redirect.endsWith("/callback"), redirect);
});

test("oauth: a request aborted while the user logs in does not abandon the authorization", async () => {
  await using as = await startOAuthFixture();
  const urls: URL[] = [];
  const oauth = withOAuth({
    redirectUri: REDIRECT,
    onAuthorizationUrl: (url) => void urls.push(url),
  });
  const f = oauth(plainFetch);
  const controller = new AbortController();
  const first = f(as.url, { ...rpc("ping"), signal: controller.signal });
  while (urls.length === 0) await new Promise((r) => setTimeout(r, 5));
  controller.abort(new Error("gave up"));
  await assertRejects(() => first);
  const second = f(as.url, rpc("ping", 2));
  await oauth.handleCallback(await follow(urls[0]));
  assertEquals((await second).status, 200);
  assertEquals(urls.length, 1);
});

test("oauth: signOut() forgets the tokens", async () => {
  await using as = await startOAuthFixture();
  const o = options();
  const oauth = withOAuth(o);
  const f = oauth(plainFetch);
  await f(as.url, rpc("ping"));
  await oauth.signOut();
  as.revokeRefreshTokens();
  assertEquals((await f(as.url, rpc("ping", 2))).status, 200);
  assertEquals(o.urls.length, 2);
});

test("oauth: an expiring token that cannot be refreshed is sent as is, never a silent login", async () => {
  await using as = await startOAuthFixture({
    refresh: false,
    challengeMetadata: true,
    prm: "root",
  });
  let offset = 0;
  const o = options({ now: () => Date.now() + offset });
  const f = withOAuth(o)(plainFetch);
  assertEquals((await f(as.url, rpc("ping"))).status, 200);
  offset = 2 * 3600_000; // the client thinks it expired; the server still takes it
  assertEquals((await f(as.url, rpc("ping", 2))).status, 200);
  assertEquals(o.urls.length, 1, "no second login");
  const gets = as.requests.filter((r) => r.method === "GET").length;
  assertEquals((await f(as.url, rpc("ping", 3))).status, 200);
  assertEquals(as.requests.filter((r) => r.method === "GET").length, gets, "no discovery either");
});

// The OAuth forms of the Streamable HTTP transport's `auth` option: checks, a client in
// both eras behind the mock authorization server (the fixture MCP server upstream),
// setAuth, authorized() and handleCallback() on the transport.

import { connectClient, createClient } from "../../client/client.ts";
import { McpError } from "../../protocol/errors.ts";
import { memoryTokenStore } from "../../oauth/store.ts";
import { streamableHttp } from "../../transports/streamable_http.ts";
import { assert, assertEquals, assertRejects, assertThrows, test } from "../_harness.ts";
import { startHttpFixture } from "../fixtures/http_server.ts";
import { startOAuthFixture } from "../fixtures/oauth_server.ts";

const reconnect = { attempts: 2, initialDelay: 10, maxDelay: 50, jitter: 0 };
const REDIRECT = "http://127.0.0.1:9/callback";
const follow = async (url: URL) => {
  const response = await fetch(url, { redirect: "manual" });
  await response.body?.cancel();
  return new URL(response.headers.get("location")!, url).href;
};

const BAD_FORMS: [unknown, string][] = [
  [{}, "must be one of"],
  [{ bearer: "a", oauth: {} }, "must be one of"],
  [{ bearer: "with space" }, "options.auth.bearer"],
  [{ oauth: {} }, "options.auth.oauth.onAuthorizationUrl"],
  [{ oauth: { onAuthorizationUrl: () => {} } }, "redirectUri or a callback"],
  [
    { oauth: { onAuthorizationUrl: () => {}, redirectUri: "not a url" } },
    "options.auth.oauth.redirectUri",
  ],
  [
    { oauth: { onAuthorizationUrl: () => {}, redirectUri: REDIRECT, client: {} } },
    "options.auth.oauth.client.clientId",
  ],
  [
    { oauth: { onAuthorizationUrl: () => {}, redirectUri: REDIRECT, store: {} } },
    "options.auth.oauth.store.getTokens",
  ],
  [
    { oauth: { onAuthorizationUrl: () => {}, redirectUri: REDIRECT, scope: 5 } },
    "options.auth.oauth.scope",
  ],
  [
    { oauth: { onAuthorizationUrl: () => {}, redirectUri: REDIRECT, dpop: "yes" } },
    "options.auth.oauth.dpop",
  ],
  [{ clientCredentials: { clientId: "svc" } }, "needs a clientSecret"],
  [{ clientCredentials: null }, "options.auth.clientCredentials must be an object"],
  [[], "must be one of"],
  ["token", "must be one of"],
];

test("oauth transport: bad auth forms throw TypeError naming the key", () => {
  for (const [auth, message] of BAD_FORMS) {
    assertThrows(
      () => streamableHttp("http://127.0.0.1:1/mcp", { auth: auth as never }),
      TypeError,
      message,
    );
    const transport = streamableHttp("http://127.0.0.1:1/mcp");
    assertThrows(
      () => transport.setAuth(auth as never),
      TypeError,
      message.replace("options.auth", "auth"),
    );
  }
});

test("oauth transport: authorized() and handleCallback() need an OAuth form", async () => {
  const transport = streamableHttp("http://127.0.0.1:1/mcp", { auth: { bearer: "t" } });
  try {
    transport.authorized();
    throw new Error("accepted");
  } catch (error) {
    assert(error instanceof McpError && error.reason === "oauth_not_configured", String(error));
  }
  await assertRejects(
    () => transport.handleCallback(`${REDIRECT}?code=c&state=s`),
    McpError,
    "not an OAuth form",
  );
});

test("oauth transport: the OAuth forms name no credentialId of their own; their tokens name the identity", async () => {
  const oauth = { onAuthorizationUrl: () => {}, redirectUri: REDIRECT, principal: "alice" };
  const transport = streamableHttp("http://127.0.0.1:1/mcp", { auth: { oauth } });
  assertEquals(transport.credentialId, undefined);
  const before = await transport.cacheTarget!();
  assertEquals(before.identity, undefined, "no tokens yet: no identity");
  assert(before.live === true, "asked again once tokens are");
  assertEquals(
    streamableHttp("http://127.0.0.1:1/mcp", { auth: { oauth }, credentialId: "x" }).credentialId,
    "x",
  );
  const bearer = streamableHttp("http://127.0.0.1:1/mcp", { auth: { bearer: "t" } });
  bearer.setAuth({ oauth: { ...oauth, principal: "bob" } });
  assertEquals(bearer.credentialId, undefined);
});

for (const mode of ["dual", "legacy-only"] as const) {
  test(`oauth transport: a client (${mode}) logs in once and every request carries the token`, async () => {
    await using upstream = await startHttpFixture(mode === "dual" ? {} : { core: { mode } });
    await using as = await startOAuthFixture({ challengeScope: "mcp:tools" }, {
      upstream: upstream.url,
    });
    const urls: URL[] = [];
    const transport = streamableHttp(as.url, {
      auth: {
        oauth: {
          redirectUri: REDIRECT,
          onAuthorizationUrl: (url) => {
            urls.push(url);
            return follow(url);
          },
        },
      },
    });
    await using client = await connectClient({ transport, reconnect });
    assertEquals(client.era(), mode === "dual" ? "modern" : "legacy");
    const result = await client.callTool("echo", { message: "behind oauth" });
    assertEquals(result.content[0].text, "behind oauth");
    await client.close();
    assertEquals(urls.length, 1);
    const mcp = as.requests.filter((r) => r.path === "/mcp");
    assertEquals(mcp[0].authorization, undefined, "the first request goes without a token");
    assert(
      mcp.slice(1).every((r) => r.authorization?.startsWith("Bearer at-")),
      "then always with it",
    );
    if (mode === "legacy-only") {
      assert(mcp.some((r) => r.method === "DELETE"), "the session DELETE carries it too");
    }
  });
}

/** An OAuth form that follows each login URL and counts the logins, with its token store. */
function countedLogins() {
  const store = memoryTokenStore();
  const counted = { logins: 0 };
  const oauth = {
    redirectUri: REDIRECT,
    onAuthorizationUrl: (url: URL) => {
      counted.logins++;
      return follow(url);
    },
  };
  return { store, oauth, counted };
}

test("oauth transport: setAuth keeps the token store when the new OAuth form names none", async () => {
  await using upstream = await startHttpFixture();
  await using as = await startOAuthFixture({}, { upstream: upstream.url });
  const { store, oauth, counted } = countedLogins();
  const transport = streamableHttp(as.url, { auth: { oauth: { ...oauth, store } } });
  await using client = await connectClient({ transport, reconnect });
  await client.callTool("echo", { message: "a" });
  assertEquals(counted.logins, 1);
  // The same principal on the kept store: no new login; another principal logs in.
  transport.setAuth({ oauth });
  await client.reconnect();
  await client.callTool("echo", { message: "b" });
  assertEquals(counted.logins, 1);
  transport.setAuth({ oauth: { ...oauth, principal: "bob" } });
  await client.reconnect();
  await client.callTool("echo", { message: "c" });
  assertEquals(counted.logins, 2);
  assert(
    await store.getTokens({ principal: "bob", issuer: as.issuer(), resource: as.url.href }) !==
      undefined,
  );
});

test("oauth transport: setAuth before the first open keeps the token store too", async () => {
  await using upstream = await startHttpFixture();
  await using as = await startOAuthFixture({}, { upstream: upstream.url });
  const { store, oauth, counted } = countedLogins();
  // The transport's core (and its middleware) loads with the first open, after this setAuth.
  const transport = streamableHttp(as.url, { auth: { oauth: { ...oauth, store } } });
  transport.setAuth({ oauth });
  await using client = await connectClient({ transport, reconnect });
  await client.callTool("echo", { message: "a" });
  assertEquals(counted.logins, 1);
  const key = { principal: "default", issuer: as.issuer(), resource: as.url.href };
  assert(await store.getTokens(key) !== undefined, "the tokens are in the kept store");
});

test("oauth transport: handleCallback() on the transport completes a waiting login", async () => {
  await using upstream = await startHttpFixture();
  await using as = await startOAuthFixture({}, { upstream: upstream.url });
  const urls: URL[] = [];
  const transport = streamableHttp(as.url, {
    auth: { oauth: { redirectUri: REDIRECT, onAuthorizationUrl: (url) => void urls.push(url) } },
  });
  const connecting = connectClient({ transport, reconnect });
  while (urls.length === 0) await new Promise((r) => setTimeout(r, 5));
  await transport.handleCallback(await follow(urls[0]));
  await using client = await connecting;
  assertEquals((await client.callTool("echo", { message: "ok" })).content[0].text, "ok");
});

test("oauth transport: a refused login fails the connection with the auth reason", async () => {
  await using as = await startOAuthFixture({ iss: "wrong" });
  const transport = streamableHttp(as.url, {
    auth: { oauth: { redirectUri: REDIRECT, onAuthorizationUrl: follow } },
  });
  try {
    await connectClient({ transport, reconnect: false });
    throw new Error("connected");
  } catch (error) {
    assert(error instanceof McpError, String(error));
    assertEquals([error.kind, error.reason], ["auth", "iss_mismatch"], error.message);
  }
  assertEquals(as.count("/token"), 0);
  assertEquals(as.count("/authorize"), 1, "refused once, not retried");
});

test("oauth transport: client.handleCallback() and client.authorized()", async () => {
  await using upstream = await startHttpFixture();
  await using as = await startOAuthFixture({}, { upstream: upstream.url });
  const urls: URL[] = [];
  const client = createClient({
    transport: streamableHttp(as.url, {
      auth: { oauth: { redirectUri: REDIRECT, onAuthorizationUrl: (url) => void urls.push(url) } },
    }),
    reconnect,
  });
  try {
    while (urls.length === 0) await new Promise((r) => setTimeout(r, 5));
    client.authorized(); // nothing stored yet: the login keeps waiting
    await client.handleCallback(await follow(urls[0]));
    await client.ready(5_000);
    assertEquals(
      (await client.callTool("echo", { message: "via client" })).content[0].text,
      "via client",
    );
  } finally {
    await client.close();
  }
  const plain = createClient({ transport: streamableHttp(as.url), reconnect: false });
  try {
    plain.authorized();
    throw new Error("accepted");
  } catch (error) {
    assert(error instanceof McpError && error.reason === "oauth_not_configured", String(error));
  } finally {
    await plain.close();
  }
});

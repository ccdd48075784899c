// The device flow (RFC 8628) against the mock authorization server (Hono on 127.0.0.1:0):
// the code is handed over once, `authorization_pending` waits, `slow_down` adds 5 seconds,
// `expired_token` and `access_denied` end it with a clear `auth` error, the registration
// asks for the device grant, `"auto"` picks the device flow only where no browser can come
// back (and then never listens), a refused refresh never starts a device login, and a
// server's hostile verification page or code is refused.

import { assert, assertEquals, test } from "../_harness.ts";
import { startOAuthFixture } from "../fixtures/oauth_server.ts";
import { withOAuth } from "../../oauth/middleware.ts";
import type { CallbackReceiver, DeviceCode, OAuthOptions } from "../../oauth/options.ts";
import { checkOAuthOptions } from "../../oauth/options_check.ts";
import { McpError } from "../../protocol/errors.ts";
import { memoryTokenStore } from "../../oauth/store.ts";
import { walkGraph } from "../edge/_graph.ts";

const plainFetch = (input: Request | URL | string, init?: RequestInit) => fetch(input, init);
const DEVICE_GRANT = "urn:ietf:params:oauth:grant-type:device_code";

function rpc(id = 1): RequestInit {
  return {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id, method: "tools/list", params: {} }),
  };
}

async function failure(promise: Promise<unknown>): Promise<McpError> {
  try {
    await promise;
  } catch (error) {
    assert(error instanceof McpError, `expected an McpError, got ${error}`);
    return error;
  }
  throw new Error("expected a rejection");
}

async function rejects(promise: Promise<unknown>): Promise<boolean> {
  try {
    await promise;
    return false;
  } catch {
    return true;
  }
}

function call(id: number): RequestInit {
  return {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "write" } }),
  };
}

function device(extra: Partial<OAuthOptions> = {}) {
  const codes: DeviceCode[] = [];
  const options: OAuthOptions = {
    flow: "device",
    onDeviceCode: (code) => void codes.push(code),
    ...extra,
  };
  return { codes, options };
}

test("device flow: the code is handed over once, pending waits, slow_down adds 5 s", async () => {
  await using as = await startOAuthFixture({
    device: { answers: ["authorization_pending", "slow_down"], interval: 1 },
  });
  const { codes, options } = device();
  const oauth = withOAuth(options);
  const statuses: string[] = [];
  const f = oauth(plainFetch);
  const started = Date.now();
  const watching = setInterval(() => statuses.push(oauth.authStatus().state), 20);
  try {
    assertEquals((await f(as.url, rpc())).status, 200);
  } finally {
    clearInterval(watching);
  }
  assertEquals(codes.length, 1);
  assertEquals(codes[0].userCode, "WDJB-MJHT");
  assertEquals(codes[0].verificationUri, `${new URL(as.url).origin}/device`);
  assertEquals(codes[0].verificationUriComplete, `${codes[0].verificationUri}?user_code=WDJB-MJHT`);
  assertEquals(codes[0].expiresIn, 600);
  assert(statuses.includes("pending"), "pending while the user had not approved");
  assertEquals(oauth.authStatus().state, "ok");
  const polls = as.requests.filter((r) =>
    r.path === "/token" && r.params.grant_type === DEVICE_GRANT
  );
  assertEquals(polls.length, 3, "pending, slow_down, then the tokens");
  assert(
    Date.now() - started >= 1_000 + 1_000 + 6_000 - 100,
    "slow_down added 5 seconds to the interval",
  );
  assertEquals(polls[0].params.resource, as.url.href);
  const register = as.requests.find((r) => r.path === "/register")!;
  assertEquals(register.params.grant_types, `${DEVICE_GRANT},refresh_token`);
  assertEquals(as.count("/authorize"), 0, "no browser login");
}, { timeout: 60_000 }); // the 5 s of slow_down, and the fixture's start on a busy machine

test("device flow: expired_token and access_denied end it with a clear auth error", async () => {
  for (
    const [answer, reason] of [
      ["expired_token", "device_code_expired"],
      ["access_denied", "authorization_denied"],
    ]
  ) {
    await using as = await startOAuthFixture({ device: { answers: [answer], interval: 1 } });
    const { codes, options } = device();
    const oauth = withOAuth(options);
    const error = await failure(oauth(plainFetch)(as.url, rpc()));
    assertEquals([error.kind, error.reason], ["auth", reason]);
    assertEquals(codes.length, 1);
    assertEquals(oauth.authStatus().state, "none", "no longer pending");
    assertEquals(as.count("/token"), 1, "no poll after the end");
  }
});

test("device flow: a hostile verification page or user code is refused before it is shown", async () => {
  for (
    const hostile of [
      { answers: [], verificationUri: "javascript:alert(1)" },
      { answers: [], verificationUri: "http://evil.example.com/device" },
      { answers: [], userCode: "AB\u001b[2JCD" },
    ]
  ) {
    await using as = await startOAuthFixture({ device: { ...hostile, interval: 1 } });
    const { codes, options } = device();
    const error = await failure(withOAuth(options)(plainFetch)(as.url, rpc()));
    assertEquals(error.kind, "auth");
    assertEquals(codes.length, 0, "nothing was shown");
  }
});

test('device flow: "auto" picks it only where no browser can come back, and then never listens', async () => {
  const receiver = (why: string | undefined) => {
    const listened: number[] = [];
    const callback: CallbackReceiver = {
      browserUnavailable: () => why,
      listen() {
        listened.push(1);
        return Promise.resolve({
          redirectUri: "http://127.0.0.1:9/callback",
          wait: () => new Promise<URL>(() => {}),
          close: () => Promise.resolve(),
        });
      },
    };
    return { callback, listened };
  };
  // Headless (the receiver says CI): the device flow, no listener.
  {
    await using as = await startOAuthFixture({ device: { answers: [], interval: 1 } });
    const { callback, listened } = receiver("CI");
    const urls: URL[] = [];
    const { codes, options } = device({
      flow: "auto",
      callback,
      onAuthorizationUrl: (url) => void urls.push(url),
    });
    assertEquals((await withOAuth(options)(plainFetch)(as.url, rpc())).status, 200);
    assertEquals([codes.length, urls.length, listened.length], [1, 0, 0]);
  }
  // A browser can come back: the browser flow, even though the device flow is offered.
  {
    await using as = await startOAuthFixture({ device: { answers: [], interval: 1 } });
    const { callback, listened } = receiver(undefined);
    const { codes, options } = device({
      flow: "auto",
      callback,
      authorizationTimeout: 300,
      onAuthorizationUrl: () => {},
    });
    // Nobody comes back to the browser login: it times out.
    assert(await rejects(withOAuth(options)(plainFetch)(as.url, rpc())));
    assertEquals([codes.length, listened.length], [0, 1]);
  }
  // The server offers no device flow: the browser, whatever the environment.
  {
    await using as = await startOAuthFixture();
    const { callback, listened } = receiver("SSH session");
    const { codes, options } = device({
      flow: "auto",
      callback,
      authorizationTimeout: 300,
      onAuthorizationUrl: () => {},
    });
    assert(await rejects(withOAuth(options)(plainFetch)(as.url, rpc())));
    assertEquals([codes.length, listened.length], [0, 1]);
  }
});

test("device flow: a refused refresh is needs_reauth; no device login starts until login()", async () => {
  await using as = await startOAuthFixture({ device: { answers: [], interval: 1 } });
  const { codes, options } = device();
  const oauth = withOAuth(options);
  const f = oauth(plainFetch);
  assertEquals((await f(as.url, rpc())).status, 200);
  as.revokeAccessTokens();
  as.revokeRefreshTokens();
  assertEquals((await failure(f(as.url, rpc(2)))).reason, "needs_reauth");
  assertEquals((await failure(f(as.url, rpc(3)))).reason, "needs_reauth");
  assertEquals(codes.length, 1, "the refresh started no device login");
  assertEquals(as.count("/device_authorization"), 1);
  await oauth.login();
  assertEquals(codes.length, 2);
  assertEquals(oauth.authStatus().state, "ok");
  assertEquals((await f(as.url, rpc(4))).status, 200);
});

test("device flow: a step-up from stored tokens asks for the union with the token's scopes", async () => {
  await using as = await startOAuthFixture({
    device: { answers: [], interval: 1 },
    challengeScope: "mcp:read",
    callScopes: ["mcp:write"],
  });
  const store = memoryTokenStore();
  const first = device({ store });
  assertEquals((await withOAuth(first.options)(plainFetch)(as.url, rpc())).status, 200);
  // A new middleware on the same store (a new process): its session never logged in, so only
  // the stored token knows which scopes were granted.
  const second = device({ store });
  const f = withOAuth(second.options)(plainFetch);
  assertEquals((await f(as.url, call(2))).status, 200);
  assertEquals(second.codes.length, 1, "one device login for the step-up");
  const asked = as.requests.filter((r) => r.path === "/device_authorization")
    .map((r) => r.params.scope);
  assertEquals(asked, ["mcp:read", "mcp:read mcp:write"]);
});

test("device flow: the options name what is missing", () => {
  const bad = (value: unknown, needle: string) => {
    try {
      checkOAuthOptions(value, "oauth");
    } catch (error) {
      assert(error instanceof TypeError && error.message.includes(needle), String(error));
      return;
    }
    throw new Error(`accepted ${JSON.stringify(value)}`);
  };
  bad({ flow: "device" }, "onDeviceCode");
  bad({ flow: "sideways", onDeviceCode: () => {} }, "flow");
  bad({ flow: "auto", onDeviceCode: () => {} }, "onAuthorizationUrl");
  bad({ onAuthorizationUrl: () => {} }, "redirectUri");
  bad({ flow: "device", onDeviceCode: () => {}, profile: "" }, "profile");
  bad({ flow: "device", onDeviceCode: () => {}, expectSubject: 3 }, "expectSubject");
  checkOAuthOptions({ flow: "device", onDeviceCode: () => {} }, "oauth");
  checkOAuthOptions({ onDeviceCode: () => {}, onAuthorizationUrl: () => {} }, "oauth");
});

test("device flow: loaded only when a login uses it (a dynamic import, even from the engine)", () => {
  for (
    const entry of [
      "mod.ts",
      "http.ts",
      "oauth/_engine.ts",
      "oauth/_recovery.ts",
      "oauth/_login.ts",
    ]
  ) {
    const eager = walkGraph(entry, { eager: true });
    assert(!eager.modules.has("oauth/_device.ts"), `${entry} loads the device flow at once`);
  }
  // The full graph (dynamic imports included) does reach it: the check can fail.
  assert(walkGraph("mod.ts").modules.has("oauth/_device.ts"));
  assert(walkGraph("http.ts").modules.has("oauth/_device.ts"), "the edge entry can log in too");
});

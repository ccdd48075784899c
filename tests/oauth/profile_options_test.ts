// How a profile reaches the OAuth credentials: the client's `profile` option, `connect(url,
// { profile })`, a hub entry's and a config entry's `profile`; a mismatch with the
// transport's own OAuth profile is refused. A profile is its own cache partition, and why
// no browser can be used is read from the environment (no display, SSH, CI).

import { connect } from "../../client/connect.ts";
import { createClient } from "../../client/client.ts";
import { clientOptionsFor } from "../../hub/_target.ts";
import { loadConfig } from "../../hub/config.ts";
import { tokenIdentity } from "../../oauth/identity.ts";
import { withOAuth } from "../../oauth/middleware.ts";
import { memoryTokenStore } from "../../oauth/store.ts";
import { startOAuthFixture } from "../fixtures/oauth_server.ts";
import { browserUnavailable } from "../../runtime/headless.ts";
import { streamableHttp, type StreamableHttpTransport } from "../../transports/streamable_http.ts";
import { assert, assertEquals, assertThrows, test } from "../_harness.ts";

const URL_ = "http://127.0.0.1:9/mcp";
const oauth = { redirectUri: "http://127.0.0.1:9/cb", onAuthorizationUrl: () => {} };

test("profile: the client, connect and hub entries set it on the OAuth credentials", () => {
  const transport = streamableHttp(URL_, { auth: { oauth: { ...oauth, profile: "work" } } });
  assertEquals(transport.profile, "work");
  assertEquals(streamableHttp(URL_, { auth: { oauth } }).profile, undefined);
  // A client naming another profile than its transport's is refused.
  assertThrows(() => createClient({ transport, profile: "personal" }), TypeError, "profile");
  assertThrows(() => createClient({ transport, profile: "" }), TypeError, "profile");
  createClient({ transport, profile: "work" }).close();
  // A hub entry's profile goes to the entry's OAuth options.
  const entry = clientOptionsFor("docs", { url: URL_, auth: { oauth }, profile: "personal" });
  assertEquals((entry.transport as StreamableHttpTransport).profile, "personal");
  assertEquals(entry.profile, "personal");
  assertThrows(
    () =>
      clientOptionsFor("docs", {
        url: URL_,
        auth: { oauth: { ...oauth, profile: "work" } },
        profile: "personal",
      }),
    TypeError,
    "differs",
  );
});

test("profile: connect(url, { profile }) logs in under that profile", async () => {
  const client = connect(URL_, {
    profile: "work",
    readyTimeout: 50,
    reconnect: false,
    http: { auth: { oauth } },
  });
  // Nothing listens on port 9: the point is that the options were taken.
  try {
    await client;
  } catch {
    // expected
  }
  assertThrows(
    () => connect(URL_, { profile: "work", http: { auth: { oauth: { ...oauth, profile: "x" } } } }),
    TypeError,
    "differs",
  );
});

test("profile: a config entry names one", async () => {
  const config = await loadConfig(
    JSON.stringify({ mcpServers: { docs: { url: URL_, profile: "${env:WHO}" } } }),
    { env: (name) => name === "WHO" ? "work" : undefined },
  );
  assertEquals((config.servers.docs as { profile?: string }).profile, "work");
});

test("profile: a profile is a cache partition of its own, even for the same account", () => {
  const tokens = {
    issuer: "https://as.example.com",
    clientId: "c",
    accessToken: "x",
    subject: "alice",
  };
  const plain = tokenIdentity(tokens, "authorization_code");
  const work = tokenIdentity(tokens, "authorization_code", "work");
  const home = tokenIdentity(tokens, "authorization_code", "personal");
  assert(plain !== undefined && work !== undefined && home !== undefined);
  assertEquals(new Set([plain, work, home]).size, 3);
  assertEquals(
    tokenIdentity({ ...tokens, subject: undefined }, "authorization_code", "work"),
    undefined,
  );
});

test("headless: no display, an SSH session or CI means no browser", () => {
  const env = (vars: Record<string, string>) => (name: string) => vars[name];
  assertEquals(browserUnavailable(env({}), "linux"), "no display");
  assertEquals(browserUnavailable(env({ DISPLAY: ":0" }), "linux"), undefined);
  assertEquals(browserUnavailable(env({ WAYLAND_DISPLAY: "wayland-0" }), "linux"), undefined);
  assertEquals(
    browserUnavailable(env({ DISPLAY: ":0", SSH_TTY: "/dev/pts/1" }), "linux"),
    "SSH session",
  );
  assertEquals(browserUnavailable(env({ CI: "true" }), "darwin"), "CI");
  assertEquals(browserUnavailable(env({ CI: "false" }), "darwin"), undefined);
  assertEquals(browserUnavailable(env({}), "darwin"), undefined);
  assertEquals(browserUnavailable(env({}), "win32"), undefined);
});

test("profile: a browser login keeps its tokens under the profile, and signOut forgets only them", async () => {
  await using as = await startOAuthFixture();
  const store = memoryTokenStore();
  const follow = async (url: URL) => {
    const response = await fetch(url, { redirect: "manual" });
    await response.body?.cancel();
    return new URL(response.headers.get("location")!, url).href;
  };
  const body = { method: "POST", body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }) };
  const work = withOAuth({ ...oauth, onAuthorizationUrl: follow, store, profile: "work" });
  const home = withOAuth({ ...oauth, onAuthorizationUrl: follow, store, profile: "personal" });
  assertEquals((await work(fetch)(as.url, body)).status, 200);
  assertEquals((await home(fetch)(as.url, body)).status, 200);
  assertEquals(as.count("/authorize"), 2, "each profile logged in on its own");
  const key = { principal: "default", issuer: new URL(as.url).origin, resource: as.url.href };
  const w = await store.getTokens({ ...key, profile: "work" });
  const h = await store.getTokens({ ...key, profile: "personal" });
  assert(w !== undefined && h !== undefined && w.accessToken !== h.accessToken);
  assertEquals(await store.getTokens(key), undefined);
  await work.signOut();
  assertEquals(await store.getTokens({ ...key, profile: "work" }), undefined);
  assertEquals(
    (await store.getTokens({ ...key, profile: "personal" }))?.accessToken,
    h.accessToken,
  );
});

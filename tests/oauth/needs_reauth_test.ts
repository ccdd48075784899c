// A client whose stored login is dead (the refresh token was revoked) in front of the mock
// authorization server and the fixture MCP server: connecting meets `needs_reauth` once,
// the client gives up at once (no reconnect storm: one refresh request, one attempt), its
// status says `needs_reauth`, requests fail fast, and `login()` runs a new login (here the
// device flow, approved by the server at once) and reconnects.

import { createClient } from "../../client/client.ts";
import { memoryTokenStore } from "../../oauth/store.ts";
import type { DeviceCode } from "../../oauth/options.ts";
import { McpError } from "../../protocol/errors.ts";
import { streamableHttp } from "../../transports/streamable_http.ts";
import { assert, assertEquals, test } from "../_harness.ts";
import { startHttpFixture } from "../fixtures/http_server.ts";
import { startOAuthFixture } from "../fixtures/oauth_server.ts";

async function failure(promise: Promise<unknown>): Promise<McpError> {
  try {
    await promise;
  } catch (error) {
    assert(error instanceof McpError, `expected an McpError, got ${error}`);
    return error;
  }
  throw new Error("expected a rejection");
}

async function reasonOf(promise: Promise<unknown>): Promise<string | undefined> {
  try {
    await promise;
  } catch (error) {
    assert(error instanceof McpError, `expected an McpError, got ${error}`);
    return error.reason;
  }
  throw new Error("expected a rejection");
}

test("needs_reauth: a dead stored login ends connecting at once; login() logs in and reconnects", async () => {
  await using upstream = await startHttpFixture();
  await using as = await startOAuthFixture({ device: { answers: [], interval: 1 } }, {
    upstream: upstream.url,
  });
  const store = memoryTokenStore();
  const codes: DeviceCode[] = [];
  const auth = {
    oauth: { flow: "device" as const, store, onDeviceCode: (c: DeviceCode) => void codes.push(c) },
  };
  // A first client logs in and stores tokens.
  const first = createClient({ transport: streamableHttp(as.url, { auth }) });
  assertEquals((await first.callTool("echo", { message: "a" })).content[0].text, "a");
  await first.close();
  assertEquals(codes.length, 1);
  // The login dies at the authorization server.
  as.revokeAccessTokens();
  as.revokeRefreshTokens();
  const refreshes = () => as.count("/token", (r) => r.params.grant_type === "refresh_token");
  // A restarted client: connecting meets the refused refresh and stops.
  const client = createClient({
    transport: streamableHttp(as.url, { auth }),
    reconnect: { attempts: 50, initialDelay: 1, maxDelay: 1, jitter: 0 },
  });
  await using _ = client;
  const gaveUp = await failure(client.ready());
  // Either the failure itself or the client's "gave up" around it.
  const cause = gaveUp.reason === "gave_up" ? gaveUp.cause as McpError : gaveUp;
  assertEquals([cause.kind, cause.reason], ["auth", "needs_reauth"]);
  await new Promise((resolve) => setTimeout(resolve, 300));
  const status = client.status();
  assertEquals([status.state, status.auth], ["closed", "needs_reauth"]);
  assertEquals(refreshes(), 1, "one refused refresh, no storm");
  assertEquals(codes.length, 1, "no login started by itself");
  const mcpBefore = as.count("/mcp");
  // The client gave up: calls fail at once, naming why.
  const call = await failure(client.callTool("echo", { message: "b" }));
  assertEquals([call.reason, (call.cause as McpError | undefined)?.reason], [
    "gave_up",
    "needs_reauth",
  ]);
  assertEquals(as.count("/mcp"), mcpBefore, "nothing sent");
  // login(): a new device login, then the client connects again.
  await client.login();
  assertEquals(codes.length, 2);
  assertEquals(client.status().auth, "ok");
  assertEquals(client.status().state, "ready");
  assertEquals((await client.callTool("echo", { message: "c" })).content[0].text, "c");
  assertEquals(refreshes(), 1);
});

test("needs_reauth: login() on a transport without OAuth is oauth_not_configured", async () => {
  await using upstream = await startHttpFixture();
  const client = createClient({ transport: streamableHttp(upstream.url) });
  await using _ = client;
  await client.ready();
  assertEquals(client.status().auth, "none");
  assertEquals(await reasonOf(client.login()), "oauth_not_configured");
});

// Unknown keys are a TypeError naming the key in every options object, not only the
// client's top level; a version pin the client does not speak is a TypeError too.
import { assert, assertEquals, assertRejects, assertThrows, test } from "../_harness.ts";
import { createClient } from "../../client/client.ts";
import { connect } from "../../client/connect.ts";
import type { ClientOptions, McpClient } from "../../client/types.ts";
import { checkKeys } from "../../protocol/option_keys.ts";
import { inProcess } from "../../transports/in_process.ts";
import { stdio, type StdioOptions } from "../../transports/stdio.ts";
import { streamableHttp, type StreamableHttpOptions } from "../../transports/streamable_http.ts";
import { withClientCredentials, withOAuth } from "../../oauth/middleware.ts";
import { loopbackCallback } from "../../oauth/callback.ts";
import { kvTokenStore } from "../../oauth/kv_store.ts";
import { idJagAssertion } from "../../oauth/enterprise.ts";
import { handleCallback } from "../../oauth/handle_callback.ts";
import { createDpopSigner } from "../../oauth/dpop.ts";
import { discover } from "../../oauth/discovery.ts";
import { memoryTokenStore } from "../../oauth/store.ts";
import type { ClientCredentialsOptions, OAuthOptions } from "../../oauth/options.ts";
import { createFixtureServer } from "../fixtures/server.ts";
import { fixtureClient, mcpError, requests, waitFor } from "./_helpers.ts";

const URL_ = "https://mcp.example.com/mcp";
const OAUTH = { redirectUri: "http://127.0.0.1:1/cb", onAuthorizationUrl: () => {} };
const CC = { clientId: "svc", clientSecret: "s" };

/** Asserts `run` throws a TypeError whose message names `key`. */
function refuses(run: () => unknown, key: string): void {
  assertThrows(run, TypeError, `"${key}"`);
}

test("checkKeys names the unknown key and suggests the near one", () => {
  const known = ["timeout", "signal", "maxTotalTimeout"];
  assertEquals(checkKeys({ timeout: 1 }, known, "x"), { timeout: 1 });
  assertThrows(
    () => checkKeys({ timout: 1 }, known, "the request options"),
    TypeError,
    'Unknown option "timout" in the request options (did you mean "timeout"?)',
  );
  assertThrows(() => checkKeys({ Signal: 1 }, known, "x"), TypeError, '(did you mean "signal"?)');
  const error = assertThrows(() => checkKeys({ zzz: 1 }, known, "x"), TypeError);
  assert(!error.message.includes("did you mean"), error.message);
  // Not an object: left to the caller's own checks.
  assertEquals(checkKeys(undefined, known, "x"), undefined);
  assertEquals(checkKeys("text", known, "x"), "text");
});

test("createClient: nested options (handler, reconnect, retry) refuse unknown keys", () => {
  const transport = inProcess(createFixtureServer());
  const table: [Record<string, unknown>, string][] = [
    [{ handler: { listroots: () => [] } }, "listroots"],
    [{ handler: { sampling: () => ({}), roots: () => [] } }, "roots"],
    [{ reconnect: { retries: 2 } }, "retries"],
    [{ retry: { maxRetryAfterMs: 1 } }, "maxRetryAfterMs"],
    [{ http: {} }, "http"],
  ];
  for (const [options, key] of table) {
    refuses(() => createClient({ transport, ...options } as unknown as ClientOptions), key);
  }
});

test("a version pin or offer the client does not speak is a TypeError", () => {
  const transport = inProcess(createFixtureServer());
  for (const protocol of ["2024-11-05", "2025-03-25", "2024-10-07"]) {
    assertThrows(() => createClient({ transport, protocol }), TypeError, `"${protocol}"`);
  }
  assertThrows(
    () => createClient({ transport, versions: ["2025-11-25", "2024-11-05"] }),
    TypeError,
    '"2024-11-05"',
  );
  for (const protocol of ["2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26"]) {
    const client = createClient({ transport, protocol, reconnect: false });
    void client.close();
  }
});

test("stdio(): its options and a connect() command target refuse unknown keys", async () => {
  const table: [Record<string, unknown>, string][] = [
    [{ command: "x", argv: [] }, "argv"],
    [{ command: "x", environment: {} }, "environment"],
    [{ command: "x", closeGracePeriodMs: 1 }, "closeGracePeriodMs"],
  ];
  for (const [options, key] of table) {
    refuses(() => stdio(options as unknown as StdioOptions), key);
    // connect() throws synchronously, before any process starts.
    refuses(() => connect(options as unknown as StdioOptions), key);
  }
  // Every documented key is accepted.
  stdio({
    command: "x",
    args: [],
    env: {},
    inheritEnv: "none",
    cwd: ".",
    stderr: "ignore",
    stderrTailBytes: 1,
    maxMessageBytes: 1,
    closeGracePeriod: 0,
    terminateGracePeriod: 0,
    spawn: () => {
      throw new Error("not started");
    },
  });
  await Promise.resolve();
});

test("streamableHttp(), connect()'s http option and setAuth refuse unknown keys", () => {
  const table: [Record<string, unknown>, string][] = [
    [{ header: {} }, "header"],
    [{ maxResponseSize: 1 }, "maxResponseSize"],
    [{ auth: { token: "t" } }, "token"],
    [{ auth: { bearer: "t", scheme: "x" } }, "scheme"],
    [{ auth: { oauth: { ...OAUTH, redirectUrl: "http://x" } } }, "redirectUrl"],
    [{ auth: { oauth: { ...OAUTH, client: { clientId: "a", secret: "b" } } } }, "secret"],
    [{ auth: { oauth: { ...OAUTH, clientMetadata: { name: "x" } } } }, "name"],
    [{ auth: { oauth: { ...OAUTH, dpop: { keyPair: {}, alg: "ES256" } } } }, "alg"],
    [{ auth: { clientCredentials: { ...CC, scopes: ["a"] } } }, "scopes"],
    [{ auth: { clientCredentials: { ...CC, issuerUrl: "https://as" } } }, "issuerUrl"],
  ];
  for (const [options, key] of table) {
    refuses(() => streamableHttp(URL_, options as StreamableHttpOptions), key);
    refuses(() => connect(URL_, { http: options as StreamableHttpOptions }), key);
  }
  const transport = streamableHttp(URL_, {
    auth: { clientCredentials: { ...CC, issuer: "https://as.example.com", scope: "a" } },
  });
  refuses(() => transport.setAuth({ bearer: "t" }, { credential: "x" } as never), "credential");
  transport.setAuth({ bearer: "t" }, { credentialId: "x" });
  assertEquals(transport.credentialId, "x");
});

test("OAuth functions refuse unknown keys in their options", async () => {
  refuses(() => withOAuth({ ...OAUTH, offline: true } as unknown as OAuthOptions), "offline");
  refuses(
    () => withClientCredentials({ ...CC, secret: "s" } as unknown as ClientCredentialsOptions),
    "secret",
  );
  refuses(() => loopbackCallback({ host: "127.0.0.1" } as never), "host");
  const kv = { get: () => Promise.resolve(), set: () => Promise.resolve(), delete: () => {} };
  refuses(() => kvTokenStore(kv as never, { prefixes: [] } as never), "prefixes");
  refuses(
    () =>
      idJagAssertion({ tokenEndpoint: "https://idp/token", idToken: "t", audience: "x" } as never),
    "audience",
  );
  await assertRejects(() => createDpopSigner({ alg: "ES256" } as never), TypeError, '"alg"');
  await assertRejects(
    () => discover(new URL("https://mcp.example.com/mcp"), { resourceMetadata: "x" } as never),
    TypeError,
    '"resourceMetadata"',
  );
  await assertRejects(
    () =>
      handleCallback("http://127.0.0.1/cb?code=x&state=y", {
        store: memoryTokenStore(),
        mcp: {},
      } as never),
    TypeError,
    '"mcp"',
  );
});

test("every request method refuses unknown per-call option keys", async () => {
  const { client } = fixtureClient();
  await using _ = client;
  await client.ready();
  const calls: [string, (c: McpClient) => Promise<unknown>][] = [
    ["ping", (c) => c.ping({ timeOut: 5 } as never)],
    ["setLogLevel", (c) => c.setLogLevel("info", { timeOut: 5 } as never)],
    ["request", (c) => c.request("ping", undefined, { timeOut: 5 } as never)],
    ["listTools", (c) => c.listTools({ page: "x" } as never)],
    ["listPrompts", (c) => c.listPrompts({ refresh: true } as never)],
    ["listResources", (c) => c.listResources({ timeOut: 5 } as never)],
    ["listResourceTemplates", (c) => c.listResourceTemplates({ timeOut: 5 } as never)],
    ["listAllTools", (c) => c.listAllTools({ cursor: "x" } as never)],
    ["listAllPrompts", (c) => c.listAllPrompts({ timeOut: 5 } as never)],
    ["listAllResources", (c) => c.listAllResources({ timeOut: 5 } as never)],
    ["listAllResourceTemplates", (c) => c.listAllResourceTemplates({ timeOut: 5 } as never)],
    ["callTool", (c) => c.callTool("echo", {}, { user: "x" } as never)],
    ["getPrompt", (c) => c.getPrompt("p", {}, { timeOut: 5 } as never)],
    ["readResource", (c) => c.readResource("x://y", { cursor: "x" } as never)],
    ["complete", (c) =>
      c.complete({ type: "ref/prompt", name: "p" }, { name: "a", value: "" }, {
        ctx: {},
      } as never)],
    ["subscribe", (c) => c.subscribe("x://y", { timeOut: 5 } as never)],
    ["unsubscribe", (c) => c.unsubscribe("x://y", { timeOut: 5 } as never)],
  ];
  for (const [method, call] of calls) {
    let error: unknown;
    try {
      await call(client);
    } catch (caught) {
      error = caught;
    }
    assert(error instanceof TypeError, `${method}: expected a TypeError, got ${error}`);
    assert(/Unknown option "\w+"/.test(error.message), `${method}: ${error.message}`);
  }
  refuses(() => client.notifications({ signals: undefined } as never), "signals");
  // The documented keys pass.
  await client.ping({ timeout: 5_000, signal: new AbortController().signal });
  await client.listTools({ cursor: undefined, timeout: 5_000, maxTotalTimeout: 10_000 });
  await client.listAllTools({ refresh: true, onProgress: () => {} });
});

test("roots.listChanged is declared whenever listRoots is implemented, and is what is sent", async () => {
  const listRoots = () => [];
  {
    const { client, server } = fixtureClient({ mode: "legacy-only" }, { handler: { listRoots } });
    await using _ = client;
    await client.ready();
    const params = requests(server, "initialize")[0].params as Record<string, unknown>;
    assertEquals(params.capabilities, { roots: { listChanged: true } });
    await client.notifyRootsChanged();
    await waitFor(
      () => server.methods().includes("notifications/roots/list_changed"),
      "the notification",
    );
  }
  {
    const { client, server } = fixtureClient({ mode: "legacy-only" }, {
      handler: { listRoots },
      rootsListChanged: false,
    });
    await using _ = client;
    await client.ready();
    const params = requests(server, "initialize")[0].params as Record<string, unknown>;
    assertEquals(params.capabilities, { roots: {} });
    const error = await mcpError(client.notifyRootsChanged());
    assertEquals([error.kind, error.reason], ["protocol", "roots_list_changed_not_declared"]);
    assert(!server.methods().includes("notifications/roots/list_changed"));
  }
});

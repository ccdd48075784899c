// mockServer drives the client through every public method of McpClient, in both eras.
import { createClient } from "../../client/client.ts";
import type { McpClient, ServerNotification } from "../../client/types.ts";
import { isMcpError } from "../../protocol/errors.ts";
import { serve } from "../../runtime/serve.ts";
import { streamableHttp } from "../../transports/streamable_http.ts";
import { type MockServer, mockServer } from "../../testing/mod.ts";
import { assert, assertEquals, assertRejects, test } from "../_harness.ts";
import { FAST, mcpError, waitFor } from "../client/_helpers.ts";
import { fullDefinition } from "./_definition.ts";

const handler = {
  elicitation: () => ({ action: "accept" as const, content: { name: "Ada" } }),
  sampling: () => ({ role: "assistant", model: "stub", content: { type: "text", text: "yo" } }),
  listRoots: () => [{ uri: "file:///project", name: "project" }],
};

const TOKEN = "mock-bearer-0123456789";

function clientOf(server: MockServer, protocol: "modern" | "legacy", url?: URL): McpClient {
  return createClient({
    transport: url ? streamableHttp(url, { auth: { bearer: TOKEN } }) : server.transport(),
    protocol,
    reconnect: FAST,
    handler,
    includeInstructions: true,
  });
}

function text(result: { content: readonly unknown[] }): string {
  return result.content.map((block) => String((block as { text?: unknown }).text ?? "")).join("");
}

async function walkthrough(era: "modern" | "legacy", via: "in_process" | "http" = "in_process") {
  const server = mockServer(fullDefinition());
  await using http = via === "http" ? await serve(server.http({ bearer: TOKEN })) : undefined;
  const client = clientOf(server, era, http ? new URL("/mcp", http.url) : undefined);
  await client.ready();
  // state, era, server info, instructions
  assertEquals(client.status().state, "ready");
  assertEquals(client.era(), era);
  assertEquals(client.serverInfo().serverInfo?.name, "full-mock");
  assertEquals(client.serverInfo().instructions, "Use the tools kindly.");
  assert(client.instructionsForLlm()?.endsWith("Use the tools kindly."));
  await client.ping();
  await client.setLogLevel("info");
  // one page, then everything
  const page = await client.listTools();
  assertEquals(page.tools.map((t) => t.name), ["echo", "add"]);
  assertEquals(page.nextCursor, "page-2");
  assertEquals((await client.listTools({ cursor: page.nextCursor })).tools[0].name, "fail");
  assertEquals((await client.listAllTools()).length, 6);
  assertEquals(client.cachedTools().length, 6);
  assertEquals(client.tool("add").name, "add");
  assertEquals((await client.listPrompts()).prompts.map((p) => p.name), ["greeting", "plain"]);
  assertEquals((await client.listAllPrompts()).length, 2);
  assertEquals((await client.listResources()).resources.length, 2);
  assertEquals((await client.listAllResources()).map((r) => r.uri), [
    "mem://a",
    "mem://b",
    "mem://c",
  ]);
  assertEquals(
    (await client.listResourceTemplates()).resourceTemplates[0].uriTemplate,
    "item://{id}",
  );
  assertEquals((await client.listAllResourceTemplates()).length, 1);
  // calls
  assertEquals(text(await client.callTool("echo", { text: "hi" })), "hi");
  assertEquals((await client.callTool("add", { a: 2, b: 3 })).structuredContent, { sum: 5 });
  const failed = await client.callTool("fail");
  assertEquals([failed.isError, text(failed)], [true, "it broke"]);
  const progress: number[] = [];
  const logs: ServerNotification[] = [];
  const stop = client.subscribeNotifications((n) => {
    if (n.method === "notifications/message") logs.push(n);
  });
  assertEquals(
    text(await client.callTool("slow", {}, { onProgress: (p) => progress.push(p.progress) })),
    "done",
  );
  assertEquals(progress, [1, 2, 3]);
  await waitFor(() => logs.length === 1, "the log message");
  stop();
  assertEquals(text(await client.callTool("ask")), "Ada yo file:///project");
  assertEquals(
    text({
      content: (await client.getPrompt("greeting", { name: "Ada" })).messages.map((m) => m.content),
    }),
    "Hello, Ada!",
  );
  assertEquals((await client.readResource("mem://c")).contents[0].text, "gamma");
  assertEquals((await client.readResource("item://7")).contents[0].text, "item 7");
  assertEquals(
    (await client.complete({ type: "ref/prompt", name: "greeting" }, { name: "name", value: "A" }))
      .completion.values,
    ["Ada", "Alan"],
  );
  assertEquals(
    (await client.complete({ type: "ref/resource", uri: "item://{id}" }, {
      name: "id",
      value: "4",
    })).completion.values,
    ["42"],
  );
  const raw = await client.request("resources/read", { uri: "mem://a" });
  assertEquals((raw.contents as { text: string }[])[0].text, "alpha");
  // subscriptions and list changes, through both listener forms
  const controller = new AbortController();
  const iterator = client.notifications({ signal: controller.signal });
  const updated = new Promise<ServerNotification>((resolve) => {
    const off = client.subscribeNotifications((n) => {
      if (n.method === "notifications/resources/updated") {
        off();
        resolve(n);
      }
    });
  });
  await client.subscribe("mem://a");
  assertEquals(server.updateResource("mem://a"), 1);
  assertEquals((await updated).params.uri, "mem://a");
  await client.unsubscribe("mem://a");
  await waitFor(() => server.changeList("tools") === 1, "a follower of tools list_changed");
  const next = await iterator.next();
  assert(!next.done);
  controller.abort();
  // roots changed: legacy only
  if (era === "legacy") {
    await client.notifyRootsChanged();
    await waitFor(
      () => server.methods().includes("notifications/roots/list_changed"),
      "roots list_changed",
    );
  } else {
    assertEquals((await mcpError(client.notifyRootsChanged())).kind, "protocol");
  }
  // credentials: HTTP takes a new bearer token (and reconnects); in-process takes none
  if (via === "http") {
    await client.setAuth({ bearer: TOKEN });
    assertEquals(client.status().state, "ready");
  } else await assertRejects(() => client.setAuth({ bearer: "x".repeat(16) }), TypeError);
  try {
    client.authorized();
    throw new Error("authorized() accepted a transport without OAuth");
  } catch (error) {
    assert(isMcpError(error) && error.reason === "oauth_not_configured");
  }
  assertEquals(
    (await mcpError(client.handleCallback("http://127.0.0.1/callback?code=x"))).reason,
    "oauth_not_configured",
  );
  // lifecycle
  await client.reconnect();
  assertEquals(client.status().state, "ready");
  await client.close();
  assertEquals(client.status().state, "closed");
  await client[Symbol.asyncDispose]();
  return server;
}

test("mockServer drives every public McpClient method in the modern era", async () => {
  const server = await walkthrough("modern");
  const methods = new Set(server.methods());
  for (
    const m of ["server/discover", "subscriptions/listen", "tools/call", "completion/complete"]
  ) {
    assert(methods.has(m), `the server got ${m}`);
  }
  assertEquals(methods.has("initialize"), false);
  assert(server.requests.filter((r) => r.id !== undefined).every((r) => r.era === "modern"));
  // the input call took one round for elicitation + sampling, one for the roots, then the answer
  const asks = server.requests.filter((r) => r.method === "tools/call" && r.params.name === "ask");
  assertEquals(asks.length, 3);
  assertEquals(Object.keys(asks[1].params.inputResponses as object), ["input_1", "input_2"]);
});

test("mockServer drives every public McpClient method in the legacy era", async () => {
  const server = await walkthrough("legacy");
  const methods = new Set(server.methods());
  for (
    const m of [
      "initialize",
      "notifications/initialized",
      "ping",
      "logging/setLevel",
      "resources/subscribe",
      "resources/unsubscribe",
    ]
  ) {
    assert(methods.has(m), `the server got ${m}`);
  }
  assertEquals(methods.has("server/discover"), false, "protocol legacy skips the probe");
  const asks = server.requests.filter((r) => r.method === "tools/call" && r.params.name === "ask");
  assertEquals(asks.length, 1, "legacy input travels as server requests");
});

test("mockServer: auto negotiation per eras, and the modern version error", async () => {
  for (
    const [eras, expected] of [["both", "modern"], ["legacy", "legacy"], [
      "modern",
      "modern",
    ]] as const
  ) {
    const server = mockServer({ ...fullDefinition(), eras });
    await using client = createClient({ transport: server.transport(), reconnect: FAST });
    await client.ready();
    assertEquals(client.era(), expected, eras);
  }
  const server = mockServer({ eras: "modern" });
  await using client = createClient({
    transport: server.transport(),
    protocol: "legacy",
    reconnect: false,
  });
  assertEquals((await mcpError(client.ready())).kind, "protocol");
});

for (const era of ["modern", "legacy"] as const) {
  test(`mockServer's HTTP handler drives every public McpClient method (${era}, real HTTP)`, async () => {
    const server = await walkthrough(era, "http");
    const calls = server.requests.filter((r) => r.method === "tools/call");
    assert(calls.length > 0 && calls.every((r) => r.via === "http"));
    assert(calls.every((r) => r.headers?.authorization === `Bearer ${TOKEN}`));
    if (era === "modern") assert(calls.every((r) => r.headers?.["mcp-method"] === "tools/call"));
    else assert(calls.every((r) => r.headers?.["mcp-session-id"]?.startsWith("mock-session-")));
  });
}

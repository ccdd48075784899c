// Issue 24, the hub's items: task owners, routing names, URI templates, restart backoff.
import { hub } from "../../hub/hub.ts";
import { mockServer } from "../../testing/mod.ts";
import { isTask } from "../../protocol/tasks.ts";
import { assert, assertEquals, assertThrows, test } from "../_harness.ts";
import { mcpError, waitFor } from "../client/_helpers.ts";
import { QUICK } from "../hub/_helpers.ts";
import { createClient } from "../../client/client.ts";
import { inProcess } from "../../transports/in_process.ts";
import type { Transport } from "../../transports/transport.ts";
import { MAX_TEMPLATE_URI, mergeResources, ownerOf } from "../../hub/_resources.ts";

const worker = (server: string) =>
  mockServer({
    serverInfo: { name: server, version: "1.0.0" },
    tools: [{ name: "long", task: "required", handler: () => `${server}:done` }],
    tasks: { pollIntervalMs: 5 },
  });

test("item 17: two servers reusing a task id each answer for their own task", async () => {
  const a = worker("a");
  const b = worker("b");
  await using servers = hub({ servers: { a: a.transport(), b: b.transport() } });
  const first = await servers.callTool("a__long", {}, { task: "return" });
  const second = await servers.callTool("b__long", {}, { task: "return" });
  assert(isTask(first) && isTask(second), "tasks");
  assertEquals(first.taskId, second.taskId);
  assertEquals((first as { server?: string }).server, "a");
  assertEquals((second as { server?: string }).server, "b");
  const result = await servers.awaitTask(first, { timeout: 10_000 });
  assertEquals(result.content[0].text, "a:done");
  assertEquals((await servers.awaitTask(second, { timeout: 10_000 })).content[0].text, "b:done");
  assertEquals((await servers.getTask(second) as { server?: string }).server, "b");
  const ambiguous = await mcpError(servers.getTask(first.taskId));
  assertEquals(ambiguous.reason, "ambiguous_task");
});

test("item 17: a governed hub runs each reused task id's own afterCall on its result", async () => {
  const a = worker("a");
  const b = worker("b");
  const seen: string[] = [];
  await using servers = hub({
    servers: { a: a.transport(), b: b.transport() },
    governance: {
      hooks: {
        afterCall: (result, request) => {
          seen.push(`${request.name}:${(result.content[0] as { text?: string }).text}`);
          return result;
        },
      },
    },
  });
  const first = await servers.callTool("a__long", {}, { task: "return" });
  const second = await servers.callTool("b__long", {}, { task: "return" });
  assert(isTask(first) && isTask(second), "tasks");
  assertEquals(first.taskId, second.taskId);
  assertEquals((await servers.awaitTask(second, { timeout: 10_000 })).content[0].text, "b:done");
  assertEquals((await servers.awaitTask(first, { timeout: 10_000 })).content[0].text, "a:done");
  assertEquals(seen, ["b__long:b:done", "a__long:a:done"]);
});

test("item 19: an unlisted URI against a template of many {+x} is matched in linear time", () => {
  const template = "x://{+a}-{+b}-{+c}-{+d}/end";
  const templates = [{ server: "s", items: [{ uriTemplate: template, name: "t" }] }];
  const uri = `x://${"-".repeat(400)}`;
  const started = performance.now();
  assertEquals(ownerOf(uri, new Map(), templates), undefined);
  assertEquals(ownerOf(`x://1-2-3-4/end`, new Map(), templates), "s");
  assert(performance.now() - started < 500, `took ${performance.now() - started} ms`);
  // Bounds: a template of too many expressions, and a URI too long, match nothing.
  const many = "x://" + Array.from({ length: 40 }, (_, i) => `{v${i}}`).join("/");
  const deep = "x://" + Array.from({ length: 40 }, (_, i) => `${i}`).join("/");
  assertEquals(
    ownerOf(deep, new Map(), [{ server: "s", items: [{ uriTemplate: many, name: "m" }] }]),
    undefined,
  );
  const long = `x://1-2-3-${"4".repeat(MAX_TEMPLATE_URI)}/end`;
  assertEquals(ownerOf(long, new Map(), templates), undefined);
});

// A server that answers the handshake, then crashes at once (as a process exiting right
// after `initialize`); counts its starts.
function crashAfterHandshake(): { transport: Transport; starts: () => number } {
  let starts = 0;
  const transport = inProcess({
    connect: (peer) => {
      starts++;
      return {
        receive(message) {
          if (!("id" in message) || !("method" in message)) return;
          peer.send({
            jsonrpc: "2.0",
            id: message.id,
            result: {
              resultType: "complete",
              supportedVersions: ["2026-07-28"],
              capabilities: { tools: {} },
            },
          });
          setTimeout(() => peer.close("crashed"), 1);
        },
      };
    },
  });
  return { transport, starts: () => starts };
}

test("item 20: a client whose server crashes right after the handshake gives up after its attempts", async () => {
  const server = crashAfterHandshake();
  await using client = createClient({
    transport: server.transport,
    reconnect: { attempts: 3, initialDelay: 5, maxDelay: 10, jitter: 0 },
  });
  await client.ready();
  await waitFor(() => client.status().state === "closed", "closed", 3_000).catch(() => {});
  assertEquals(client.status().state, "closed");
  assertEquals(server.starts(), 4);
});

test("item 20: a hub restarts a server that crashes right after the handshake only per attempts", async () => {
  const server = crashAfterHandshake();
  await using servers = hub({
    servers: { flaky: { transport: server.transport, reconnect: false } },
    reconnect: { attempts: 2, ...QUICK },
  });
  await servers.ready();
  await waitFor(() => servers.status().servers.flaky.state === "failed", "failed", 3_000)
    .catch(() => {});
  assertEquals(servers.status().servers.flaky.state, "failed");
  assertEquals(server.starts(), 3);
});

// A server with tools `names` whose listing fails while `down()` says so (as a server that
// is briefly unavailable); each call answers `<server>:<tool>`.
function listingServer(server: string, names: string[], down: () => boolean): Transport {
  return inProcess({
    connect: (peer) => ({
      receive(message) {
        if (!("id" in message) || !("method" in message)) return;
        const reply = (result: Record<string, unknown>) =>
          peer.send({
            jsonrpc: "2.0",
            id: message.id,
            result: { resultType: "complete", ...result },
          });
        if (message.method === "tools/list") {
          if (down()) {
            peer.send({ jsonrpc: "2.0", id: message.id, error: { code: -32603, message: "busy" } });
          } else reply({ tools: names.map((name) => ({ name, inputSchema: { type: "object" } })) });
        } else if (message.method === "tools/call") {
          const name = (message.params as { name: string }).name;
          reply({ content: [{ type: "text", text: `${server}:${name}` }] });
        } else reply({ supportedVersions: ["2026-07-28"], capabilities: { tools: {} } });
      },
    }),
  });
}

test("item 18: a hub name keeps leading to its server when another listing lacks the first owner", async () => {
  let adminDown = false;
  await using servers = hub({
    servers: {
      admin: listingServer("admin", ["delete"], () => adminDown),
      vendor: listingServer("vendor", ["delete"], () => false),
    },
    prefix: false,
    reconnect: false,
  });
  assertEquals((await servers.listAllTools()).map((t) => t.name), ["delete", "vendor__delete"]);
  adminDown = true; // Another caller's listing, while the admin server cannot list.
  assertEquals((await servers.listAllTools()).map((t) => t.name), ["vendor__delete"]);
  adminDown = false;
  assertEquals((await servers.callTool("delete")).content[0].text, "admin:delete");
  assertEquals((await servers.callTool("vendor__delete")).content[0].text, "vendor:delete");
});

test("item 18: a server name that begins with another's and the separator is refused", () => {
  const servers = (names: string[]) =>
    Object.fromEntries(names.map((n) => [n, listingServer(n, ["c"], () => false)]));
  assertThrows(() => hub({ servers: servers(["one", "one__b"]) }), TypeError, "one__b");
  assertThrows(() => hub({ servers: servers(["a", "a.b"]), separator: "." }), TypeError, "a.b");
});

test("item 18: a URI an earlier listing gave one server is not another's when it lists it alone", () => {
  const earlier = mergeResources([
    { server: "admin", items: [{ uri: "secret://x", name: "x" }] },
    { server: "vendor", items: [{ uri: "secret://x", name: "x" }] },
  ]);
  assertEquals(earlier.owners.get("secret://x"), "admin");
  const later = mergeResources([
    { server: "vendor", items: [{ uri: "secret://x", name: "x" }] },
  ], earlier.owners);
  assertEquals(later.owners.get("secret://x"), "admin");
  assertEquals(later.items, []);
  assertEquals(later.collisions.map((c) => c.server), ["vendor"]);
});

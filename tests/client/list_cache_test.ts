// The listing cache: one refresh at a time shared by concurrent callers, refreshes that
// outlive their callers, and the same for prompts, resources and resource templates.
import { createClient } from "../../client/client.ts";
import { cacheOver, fakeRequester, toolsPage } from "../cache/_helpers.ts";
import { inProcess, type InProcessServer } from "../../transports/in_process.ts";
import { assert, assertEquals, test } from "../_harness.ts";
import { createFixtureServer, type FixtureKnobs, type FixtureServer } from "../fixtures/server.ts";
import { FAST, mcpError, requests, waitFor } from "./_helpers.ts";

/** The fixture, with answers to `method` held back `ms` milliseconds. */
function slowLists(server: FixtureServer, ms: number): InProcessServer {
  return {
    connect(peer) {
      const held = new Set<unknown>();
      const connection = server.connect({
        send(message) {
          if (typeof message !== "string" && "id" in message && held.delete(message.id)) {
            setTimeout(() => peer.send(message), ms);
          } else peer.send(message);
        },
        close: (reason) => peer.close(reason),
      });
      return {
        receive(message) {
          if ("method" in message && message.method.endsWith("/list") && "id" in message) {
            held.add(message.id);
          }
          connection.receive(message);
        },
        close: () => connection.close?.(),
      };
    },
  };
}

function slowClient(knobs: FixtureKnobs = {}, ms = 40) {
  const server = createFixtureServer(knobs);
  const client = createClient({ transport: inProcess(slowLists(server, ms)), reconnect: FAST });
  return { server, client };
}

test("listAllTools: concurrent callers share one refresh", async () => {
  const { server, client } = slowClient({ pageSize: 3 });
  await using _ = client;
  await client.ready();
  const lists = await Promise.all([
    client.listAllTools({ refresh: true }),
    client.listAllTools(),
    client.listAllTools({ refresh: true }),
  ]);
  assertEquals(requests(server, "tools/list").length, 3, "one refresh of three pages");
  assertEquals(lists.map((tools) => tools.length), [7, 7, 7]);
  assert(lists[0] !== lists[1], "each caller gets its own array");
  await client.listAllTools();
  assertEquals(requests(server, "tools/list").length, 3, "then fresh from the cache");
});

test("listAllTools: a refresh the caller stopped waiting for still fills the cache", async () => {
  const { server, client } = slowClient({ pageSize: 1 }, 100);
  await using _ = client;
  await client.ready();
  const controller = new AbortController();
  const abandoned = client.listAllTools({ signal: controller.signal });
  controller.abort(new Error("not any more"));
  assertEquals((await mcpError(abandoned)).kind, "cancelled");
  // Two pages of 100 ms each: every page is within the timeout, the whole wait is not.
  const timedOut = await mcpError(client.listAllPrompts({ timeout: 150 }));
  assertEquals([timedOut.kind, timedOut.reason], ["timeout", "request_timeout"]);
  await waitFor(() => requests(server, "tools/list").length === 7, "the tools pages", 5_000);
  await waitFor(
    () => {
      try {
        return client.cachedTools().length === 7;
      } catch {
        return false;
      }
    },
    "the tools refresh to fill the cache",
    5_000,
  );
  await waitFor(() => requests(server, "prompts/list").length === 2, "the prompts pages", 5_000);
  await new Promise((resolve) => setTimeout(resolve, 150));
  assertEquals(requests(server, "tools/list").length, 7);
  const prompts = await client.listAllPrompts();
  assertEquals(prompts.map((prompt) => prompt.name), ["greeting", "args"]);
  assertEquals(requests(server, "prompts/list").length, 2, "the prompts refresh completed too");
});

test("listAllPrompts/Resources/ResourceTemplates: single-flight and cached", async () => {
  const { server, client } = slowClient();
  await using _ = client;
  const [p1, p2, r1, r2, t1, t2] = await Promise.all([
    client.listAllPrompts(),
    client.listAllPrompts(),
    client.listAllResources(),
    client.listAllResources({ refresh: true }),
    client.listAllResourceTemplates(),
    client.listAllResourceTemplates(),
  ]);
  assertEquals([p1.length, p2.length, r1.length, r2.length, t1.length, t2.length], [
    2,
    2,
    3,
    3,
    1,
    1,
  ]);
  for (const method of ["prompts/list", "resources/list", "resources/templates/list"]) {
    assertEquals(requests(server, method).length, 1, method);
  }
  await client.listAllResources();
  await client.listAllResourceTemplates();
  assertEquals(requests(server, "resources/list").length, 1, "fresh for its ttlMs");
  await client.listAllResources({ refresh: true });
  assertEquals(requests(server, "resources/list").length, 2);
});

test("listAll*: a failed refresh is shared, caches nothing, and the next call tries again", async () => {
  const { server, client } = slowClient({ pageSize: 2, cursorLoop: true });
  await using _ = client;
  const errors = await Promise.all([
    mcpError(client.listAllTools()),
    mcpError(client.listAllTools()),
  ]);
  assertEquals(errors.map((e) => e.kind), ["pagination_cycle", "pagination_cycle"]);
  assertEquals(errors[0], errors[1]);
  assertEquals(requests(server, "tools/list").length, 2);
  assertEquals(
    (await mcpError(Promise.resolve().then(() => client.cachedTools()))).reason,
    "not_cached",
  );
  server.knobs.cursorLoop = false;
  assertEquals((await client.listAllTools()).length, 7);
});

test("listAll*: list_changed during a refresh leaves its result stale", async () => {
  const release = Promise.withResolvers<void>();
  const requester = fakeRequester(async () => {
    await release.promise;
    return toolsPage(["a"], { ttlMs: 60_000, cacheScope: "public" });
  });
  const cache = cacheOver(requester);
  const pending = cache.listAll("tools");
  await waitFor(() => requester.calls.length === 1, "the page on its way");
  cache.notification("notifications/tools/list_changed", {}); // while the page is on its way
  release.resolve();
  assertEquals((await pending).length, 1);
  await cache.listAll("tools");
  const calls = requester.calls.length;
  assertEquals(calls, 2, "the listing from before the change was not fresh");
  await cache.listAll("tools");
  assertEquals(requester.calls.length, calls);
});

test("listAll*: new credentials keep public listings and drop the rest", async () => {
  for (const [scope, kept] of [["public", true], ["private", false], [undefined, false]] as const) {
    const requester = fakeRequester(() =>
      toolsPage(["a"], { ttlMs: 60_000, ...(scope ? { cacheScope: scope } : {}) })
    );
    const cache = cacheOver(requester);
    await cache.listAll("tools");
    await cache.credentialsChanged(undefined);
    let present = true;
    try {
      cache.cachedTools();
    } catch {
      present = false;
    }
    assertEquals(present, kept, String(scope));
  }
});

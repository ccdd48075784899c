import { assert, assertEquals, scriptCommand, test } from "../_harness.ts";
import { spawnProcess } from "../../runtime/spawn.ts";
import { createClient } from "../../client/client.ts";
import type { Progress } from "../../client/types.ts";
import type { JsonRpcMessage } from "../../protocol/jsonrpc.ts";
import { inProcess } from "../../transports/in_process.ts";
import { createFixtureServer } from "../fixtures/server.ts";
import { startHttpFixture } from "../fixtures/http_server.ts";
import { streamableHttp } from "../../transports/streamable_http.ts";
import { fixtureClient, mcpError, metaOf, requests, waitFor, wrapTransport } from "./_helpers.ts";

function cancellations(messages: JsonRpcMessage[]) {
  return messages.flatMap((m) =>
    "method" in m && m.method === "notifications/cancelled" ? [m.params ?? {}] : []
  );
}

for (const mode of ["dual", "legacy-only"] as const) {
  test(`[${mode}] a timeout fails with kind timeout and sends notifications/cancelled`, async () => {
    const { client, server } = fixtureClient({ mode });
    await using _ = client;
    await client.ready();
    const started = Date.now();
    const error = await mcpError(client.callTool("slow", { ms: 1_000 }, { timeout: 30 }));
    assertEquals(error.kind, "timeout");
    assertEquals(error.reason, "request_timeout");
    assert(Date.now() - started < 500);
    const id = requests(server, "tools/call")[0].id;
    await waitFor(() => cancellations(server.received).length === 1, "the cancellation");
    assertEquals(cancellations(server.received)[0].requestId, id);
    assertEquals((await client.callTool("echo", { message: "ok" })).content[0].text, "ok");
  });

  test(`[${mode}] the caller's signal cancels with kind cancelled and a reason`, async () => {
    const { client, server } = fixtureClient({ mode });
    await using _ = client;
    await client.ready();
    const controller = new AbortController();
    const pending = client.callTool("slow", { ms: 1_000 }, { signal: controller.signal });
    await waitFor(() => requests(server, "tools/call").length === 1, "the call");
    controller.abort(new Error("user pressed stop"));
    const error = await mcpError(pending);
    assertEquals(error.kind, "cancelled");
    await waitFor(() => cancellations(server.received).length === 1, "the cancellation");
    assertEquals(cancellations(server.received)[0], {
      requestId: requests(server, "tools/call")[0].id,
      reason: "user pressed stop",
    });
  });
}

test("an already aborted signal rejects without sending", async () => {
  const { client, server } = fixtureClient();
  await using _ = client;
  await client.ready();
  const before = server.received.length;
  const error = await mcpError(
    client.callTool("echo", { message: "x" }, { signal: AbortSignal.abort() }),
  );
  assertEquals(error.kind, "cancelled");
  assertEquals(server.received.length, before);
});

test("a late response after a timeout is ignored and the session goes on", async () => {
  const { client, server } = fixtureClient({ ignoreCancel: true });
  await using _ = client;
  await client.ready();
  const error = await mcpError(client.callTool("slow", { ms: 60, steps: 1 }, { timeout: 20 }));
  assertEquals(error.kind, "timeout");
  await new Promise((resolve) => setTimeout(resolve, 80));
  assertEquals((await client.callTool("echo", { message: "still" })).content[0].text, "still");
  assertEquals(client.status().state, "ready");
  assertEquals(server.connections, 1);
});

test("progress restarts the timeout; onProgress sees only its own request", async () => {
  const { client } = fixtureClient();
  await using _ = client;
  await client.ready();
  const first: Progress[] = [];
  const second: number[] = [];
  // Progress every 40 ms against a 250 ms timeout: a wide margin for a loaded machine, and
  // the call still runs four times as long as the timeout.
  const [a, b] = await Promise.all([
    client.callTool("slow", { ms: 1_000, steps: 25 }, {
      timeout: 250,
      onProgress: (p) => first.push(p),
    }),
    client.callTool("slow", { ms: 40, steps: 2 }, { onProgress: (p) => second.push(p.progress) }),
  ]);
  assertEquals(a.content[0].text, "done after 1000 ms", "progress kept it alive past 250 ms");
  assertEquals(b.isError, false);
  assertEquals(first.map((p) => p.progress), Array.from({ length: 25 }, (_, i) => i + 1));
  assertEquals(first[0].total, 25);
  assertEquals(first[0].message, "step 1");
  assertEquals(second, [1, 2]);
});

test("maxTotalTimeout caps a request that keeps reporting progress", async () => {
  const { client, server } = fixtureClient({ mode: "legacy-only" });
  await using _ = client;
  await client.ready();
  const seen: number[] = [];
  const started = Date.now();
  const error = await mcpError(
    // Progress every 50 ms against a 400 ms timeout (room for a loaded machine's pauses).
    client.callTool("slow", { ms: 2_000, steps: 40 }, {
      timeout: 400,
      maxTotalTimeout: 800,
      onProgress: (p) => seen.push(p.progress),
    }),
  );
  const took = Date.now() - started;
  assertEquals(error.kind, "timeout");
  assertEquals(error.reason, "max_total_timeout");
  assert(took >= 795 && took < 1_800, `stopped at the ceiling (${took} ms)`);
  assert(seen.length >= 2, "progress arrived before the ceiling");
  await waitFor(() => cancellations(server.received).length === 1, "the cancellation");
});

test("without progress the timeout is not extended", async () => {
  const { client } = fixtureClient();
  await using _ = client;
  await client.ready();
  const error = await mcpError(client.callTool("slow", { ms: 200, steps: 1 }, { timeout: 50 }));
  assertEquals(error.kind, "timeout");
});

test("a progressToken is sent when onProgress is given or a timeout applies", async () => {
  const { client, server } = fixtureClient({}, { requestTimeout: Infinity });
  await using _ = client;
  await client.callTool("echo", { message: "none" });
  await client.callTool("echo", { message: "timeout" }, { timeout: 1_000 });
  await client.callTool("echo", { message: "progress" }, { onProgress: () => {} });
  const tokens = requests(server, "tools/call").map((m) => metaOf(m).progressToken);
  assertEquals(tokens[0], undefined);
  assert(typeof tokens[1] === "number" && typeof tokens[2] === "number");
  assert(tokens[1] !== tokens[2], "unique tokens");
});

test("timeouts share one timer per session; each request still expires on its own time", async () => {
  const { client } = fixtureClient();
  await using _ = client;
  await client.ready();
  // Count the timers armed for the 10 s deadline while 50 requests are in flight.
  const original = globalThis.setTimeout;
  let armed = 0;
  globalThis.setTimeout = ((fn: () => void, ms?: number) => {
    if (ms !== undefined && ms > 9_000 && ms <= 10_000) armed++;
    return original(fn, ms);
  }) as typeof setTimeout;
  let calls: Promise<unknown>[];
  try {
    calls = Array.from(
      { length: 50 },
      () => client.callTool("slow", { ms: 30, steps: 1 }, { timeout: 10_000 }),
    );
  } finally {
    globalThis.setTimeout = original;
  }
  // One timer at most: the handshake's parked timer is taken back when it is due no later.
  assert(armed <= 1, `${armed} timers for 50 requests`);
  await Promise.all(calls);

  // A shorter timeout after a longer one re-arms the timer earlier; the longer one keeps its own.
  const started = Date.now();
  const long = mcpError(client.callTool("slow", { ms: 2_000, steps: 1 }, { timeout: 250 }));
  const short = mcpError(client.callTool("slow", { ms: 2_000, steps: 1 }, { timeout: 40 }));
  const untimed = client.callTool("slow", { ms: 400, steps: 1 }, { timeout: Infinity });
  const shortError = await short;
  const shortTook = Date.now() - started;
  assertEquals([shortError.kind, shortError.reason], ["timeout", "request_timeout"]);
  assert(shortTook >= 35 && shortTook < 200, `the short one expired at ${shortTook} ms`);
  const longError = await long;
  const longTook = Date.now() - started;
  assertEquals([longError.kind, longError.reason], ["timeout", "request_timeout"]);
  assert(longTook >= 245 && longTook < 600, `the long one expired at ${longTook} ms`);
  assertEquals((await untimed).isError, false, "an untimed request is not watched");
});

test("the parked deadline timer does not keep an idle process alive", async () => {
  // The script makes requests with a 60 s timeout, then leaves its client open.
  const child = spawnProcess(scriptCommand(new URL("../fixtures/idle_client.ts", import.meta.url)));
  void child.stdin.getWriter().close().catch(() => {});
  const killer = setTimeout(() => child.kill("SIGKILL"), 15_000);
  const [output, status] = await Promise.all([new Response(child.stdout).text(), child.exited]);
  clearTimeout(killer);
  await child.stderr.cancel();
  assertEquals(output.trim(), "answered");
  assertEquals([status.code, status.signal], [0, null], "exited on its own, long before 60 s");
});

test("progress moves only its own request's deadline under the shared timer", async () => {
  const { client } = fixtureClient();
  await using _ = client;
  await client.ready();
  const started = Date.now();
  // Progress every 40 ms against a 250 ms timeout (room for a loaded machine's pauses).
  const [kept, lapsed] = await Promise.allSettled([
    client.callTool("slow", { ms: 600, steps: 15 }, { timeout: 250, onProgress: () => {} }),
    client.callTool("slow", { ms: 600, steps: 1 }, { timeout: 250 }),
  ]);
  assert(kept.status === "fulfilled", "progress kept the first alive");
  assertEquals(kept.value.content[0].text, "done after 600 ms");
  assert(lapsed.status === "rejected");
  assertEquals((lapsed.reason as { reason?: string }).reason, "request_timeout");
  assert(Date.now() - started >= 595);
});

test("modern over HTTP cancels by aborting the send signal, not by notification", async () => {
  const server = createFixtureServer();
  const signals: AbortSignal[] = [];
  const transport = wrapTransport(inProcess(server), {
    kind: "http",
    onSend: (message, signal) => {
      if ("method" in message && message.method === "tools/call" && signal) signals.push(signal);
    },
  });
  await using client = createClient({ transport });
  await client.ready();
  const error = await mcpError(client.callTool("slow", { ms: 1_000 }, { timeout: 20 }));
  assertEquals(error.kind, "timeout");
  assertEquals(signals.length, 1);
  assert(signals[0].aborted, "the send signal was aborted");
  await new Promise((resolve) => setTimeout(resolve, 10));
  assertEquals(cancellations(server.received).length, 0);
});

test("legacy over HTTP still cancels by notification", async () => {
  const server = createFixtureServer({ mode: "legacy-only" });
  const transport = wrapTransport(inProcess(server), { kind: "http" });
  await using client = createClient({ transport });
  await client.ready();
  await mcpError(client.callTool("slow", { ms: 1_000 }, { timeout: 20 }));
  await waitFor(() => cancellations(server.received).length === 1, "the cancellation");
});

test("settled requests unlink from the caller's signal", async () => {
  const { client } = fixtureClient();
  await using _ = client;
  await client.ready();
  const controller = new AbortController();
  let added = 0;
  let removed = 0;
  const add = controller.signal.addEventListener.bind(controller.signal);
  const remove = controller.signal.removeEventListener.bind(controller.signal);
  controller.signal.addEventListener = ((...args: Parameters<typeof add>) => {
    added++;
    return add(...args);
  }) as typeof add;
  controller.signal.removeEventListener = ((...args: Parameters<typeof remove>) => {
    removed++;
    return remove(...args);
  }) as typeof remove;
  for (let i = 0; i < 20; i++) {
    await client.callTool("echo", { message: String(i) }, { signal: controller.signal });
  }
  assertEquals(added, 20);
  assertEquals(removed, 20);
});

/** Counts the AbortControllers made while `work` runs. */
async function controllersMadeBy(work: () => Promise<void>): Promise<number> {
  const Original = globalThis.AbortController;
  let made = 0;
  globalThis.AbortController = class extends Original {
    constructor() {
      super();
      made++;
    }
  };
  try {
    await work();
  } finally {
    globalThis.AbortController = Original;
  }
  return made;
}

test("a request makes its send controller only when the link asks for one", async () => {
  const calls = 20;
  // In-process (as stdio) the link never asks: no controller at all.
  const local = fixtureClient().client;
  await using _local = local;
  await local.ready();
  const madeLocally = await controllersMadeBy(async () => {
    for (let i = 0; i < calls; i++) await local.callTool("echo", { text: "x" });
  });
  assertEquals(madeLocally, 0, "no AbortController without a link that aborts");

  // Over HTTP the link asks (to abort its fetch): one per request, never a second.
  await using fixture = await startHttpFixture();
  await using remote = createClient({ transport: streamableHttp(fixture.url) });
  await remote.ready();
  const madeOverHttp = await controllersMadeBy(async () => {
    for (let i = 0; i < calls; i++) await remote.callTool("echo", { text: "x" });
  });
  assertEquals(madeOverHttp, calls, "one AbortController per HTTP request");
});

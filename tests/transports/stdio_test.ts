import { McpError } from "../../protocol/errors.ts";
import type { JsonRpcMessage } from "../../protocol/jsonrpc.ts";
import { type SpawnOptions, spawnProcess } from "../../runtime/spawn.ts";
import { stdio, type StdioOptions } from "../../transports/stdio.ts";
import type { TransportSink } from "../../transports/transport.ts";
import {
  assert,
  assertEquals,
  assertRejects,
  assertStringIncludes,
  assertThrows,
  scriptCommand,
  test,
} from "../_harness.ts";

const toy = scriptCommand(new URL("../fixtures/stdio_toy.ts", import.meta.url));
const fixture = scriptCommand(new URL("../fixtures/stdio_server.ts", import.meta.url));

interface Recorder extends TransportSink {
  messages: JsonRpcMessage[];
  warnings: string[];
  closedWith: McpError[];
}

function recorder(): Recorder {
  const r: Recorder = {
    messages: [],
    warnings: [],
    closedWith: [],
    message: (message) => void r.messages.push(message),
    closed: (error) => void r.closedWith.push(error),
    warn: (text) => void r.warnings.push(text),
  };
  return r;
}

async function waitFor(what: string, condition: () => boolean, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

function open(options: Partial<StdioOptions> = {}) {
  const sink = recorder();
  const transport = stdio({ ...toy, ...options });
  return { sink, transport, link: transport.open(sink) };
}

let nextId = 1;
/** Sends a request and waits for its response. */
async function call(
  link: { send(message: JsonRpcMessage): Promise<void> },
  sink: Recorder,
  method: string,
  params: Record<string, unknown> = {},
) {
  const id = nextId++;
  await link.send({ jsonrpc: "2.0", id, method, params });
  const isMine = (m: JsonRpcMessage) => "id" in m && m.id === id && !("method" in m);
  await waitFor(`the response to ${method}`, () => sink.messages.some(isMine));
  return sink.messages.find(isMine) as { result?: Record<string, unknown> };
}

test("stdio: round trip with a real process, and a clean close on stdin EOF", async () => {
  const { sink, transport, link: opening } = open({ closeGracePeriod: 10_000 });
  assertEquals(transport.kind, "stdio");
  const link = await opening;
  link.setProtocol({ era: "legacy", version: "2025-11-25" });
  const reply = await call(link, sink, "echo", { text: "héllo\nworld", n: [1, 2] });
  assertEquals(reply.result, { params: { text: "héllo\nworld", n: [1, 2] } });
  assertEquals((await call(link, sink, "pid")).result, { pid: link.pid });
  const started = Date.now();
  await link.close();
  assertEquals(await link.exited, { code: 0, signal: null }, "exits by itself on EOF");
  assert(Date.now() - started < 8_000, "no escalation needed");
  await link.close(); // idempotent
  assertEquals(sink.closedWith, [], "close() does not report closed");
  await assertRejects(() => link.send({ jsonrpc: "2.0", method: "x" }), McpError, "closed");
});

test("stdio: responses may come out of order", async () => {
  const { sink, link: opening } = open();
  const link = await opening;
  const slow = call(link, sink, "delay", { ms: 400 });
  const fast = call(link, sink, "echo", { fast: true });
  await Promise.all([slow, fast]);
  const ids = sink.messages.map((m) => ("id" in m ? m.id : undefined));
  assertEquals(ids.length, 2);
  assert((ids[0] as number) > (ids[1] as number), "the later request was answered first");
  await link.close();
});

test("stdio: lines that are not JSON-RPC are skipped with a warning that hides them", async () => {
  const { sink, link: opening } = open();
  const link = await opening;
  await call(link, sink, "raw", {
    lines: [
      "not json: token=hunter2",
      "[1,2]",
      "",
      "   ",
      '{"jsonrpc":"1.0","method":"old"}',
      '{"jsonrpc":"2.0","method":"after"}\r',
    ],
  });
  assertEquals(sink.warnings.length, 3, sink.warnings.join(" | "));
  assert(sink.warnings.every((w) => !w.includes("hunter2")), "the line's content is not shown");
  assertStringIncludes(sink.warnings[0], "not_json");
  assertStringIncludes(sink.warnings[1], "batch");
  assert(sink.messages.some((m) => "method" in m && m.method === "after"));
  assertEquals(sink.closedWith, []);
  await link.close();
});

test("stdio: a message over maxMessageBytes is skipped, the stream goes on", async () => {
  const { sink, link: opening } = open({ maxMessageBytes: 64 * 1024 });
  const link = await opening;
  await call(link, sink, "big", { bytes: 60 * 1024 });
  assertEquals(sink.messages.filter((m) => "method" in m && m.method === "big").length, 1);
  await call(link, sink, "big", { bytes: 3 * 1024 * 1024 });
  assertEquals(sink.messages.filter((m) => "method" in m && m.method === "big").length, 1);
  assertEquals(sink.warnings.length, 1);
  assertStringIncludes(sink.warnings[0], "maxMessageBytes (65536)");
  await link.close();
});

test("stdio: the default limit is 4 MiB", async () => {
  const { sink, link: opening } = open();
  const link = await opening;
  await call(link, sink, "big", { bytes: 4 * 1024 * 1024 });
  await call(link, sink, "big", { bytes: 4 * 1024 * 1024 + 1 });
  assertEquals(sink.messages.filter((m) => "method" in m && m.method === "big").length, 1);
  assertStringIncludes(sink.warnings.join(), "4194305-byte");
  await link.close();
});

test("stdio: stderr is drained into a bounded tail and forwarded", async () => {
  const chunks: string[] = [];
  const { sink, transport, link: opening } = open({
    stderrTailBytes: 1024,
    stderr: (chunk) => chunks.push(chunk),
    env: { TOY_BANNER: "toy server ready" },
  });
  const link = await opening;
  const text = "0123456789abcdef".repeat(64); // 1 KiB
  await call(link, sink, "stderr", { text, repeat: 512 }); // 512 KiB: more than a pipe holds
  await call(link, sink, "stderr", { text: "THE END\n" });
  await waitFor("the last stderr chunk", () => chunks.join("").endsWith("THE END\n"));
  const forwarded = chunks.join("");
  assertEquals(forwarded.length, "toy server ready\n".length + 512 * 1024 + "THE END\n".length);
  assert(forwarded.startsWith("toy server ready\n"));
  const tail = link.stderrTail();
  assertEquals(tail.length, 1024);
  assert(tail.endsWith("cdef0123456789abcdefTHE END\n"), "the tail is the newest output");
  assertEquals(transport.stderrTail(), tail);
  await link.close();
});

test("stdio: stderr 'ignore' keeps nothing but still drains", async () => {
  const { sink, link: opening } = open({ stderr: "ignore" });
  const link = await opening;
  await call(link, sink, "stderr", { text: "x".repeat(1024), repeat: 256 });
  assertEquals(link.stderrTail(), "");
  await link.close();
});

test("stdio: an exit reports closed once, with the code and the stderr tail", async () => {
  const { sink, link: opening } = open();
  const link = await opening;
  await link.send({
    jsonrpc: "2.0",
    id: 1,
    method: "raw",
    params: { lines: ['{"jsonrpc":"2.0","method":"last words"}'] },
  });
  await link.send({
    jsonrpc: "2.0",
    id: 2,
    method: "exit",
    params: { code: 3, stderr: "starting\nfatal: missing API key\n", partial: '{"jsonrpc":' },
  });
  await waitFor("closed", () => sink.closedWith.length > 0);
  const error = sink.closedWith[0];
  assertEquals([error.kind, error.reason], ["transport", "process_exited"]);
  assertStringIncludes(error.message, "code 3");
  assertStringIncludes(error.message, "fatal: missing API key");
  assert(!error.message.endsWith("\n"), "the tail is trimmed");
  assert(
    sink.messages.some((m) => "method" in m && m.method === "last words"),
    "what the server wrote before exiting is delivered before closed",
  );
  assertEquals(sink.warnings.length, 1, "the cut-off last line is skipped with a warning");
  const rejected = await assertRejects(
    () => link.send({ jsonrpc: "2.0", id: 3, method: "echo" }),
    McpError,
  );
  assertEquals(rejected.kind, "transport");
  assertEquals(await link.exited, { code: 3, signal: null });
  await new Promise((resolve) => setTimeout(resolve, 200));
  await link.close();
  assertEquals(sink.closedWith.length, 1, "closed exactly once");
});

test("stdio: a server that closes its stdout but lives on ends the link", async () => {
  // POSIX sh: close stdout, then live on as `sleep`.
  const sink = recorder();
  const transport = stdio({
    command: "sh",
    args: ["-c", "exec 1>&-; exec sleep 30"],
    closeGracePeriod: 200,
    terminateGracePeriod: 200,
  });
  const link = await transport.open(sink);
  await waitFor("closed", () => sink.closedWith.length > 0);
  assertEquals([sink.closedWith[0].kind, sink.closedWith[0].reason], [
    "transport",
    "stdout_closed",
  ]);
  assertEquals((await link.exited).signal, "SIGTERM", "the process is ended");
  await assertRejects(() => link.send({ jsonrpc: "2.0", method: "x" }), McpError);
  assertEquals(sink.closedWith.length, 1);
});

test("stdio: close() escalates to SIGTERM, then SIGKILL", async () => {
  const grace = { closeGracePeriod: 300, terminateGracePeriod: 300 };
  // Ignores stdin EOF only: SIGTERM ends it.
  const deaf = open(grace);
  const deafLink = await deaf.link;
  await call(deafLink, deaf.sink, "stubborn", { term: true });
  let started = Date.now();
  await deafLink.close();
  assertEquals((await deafLink.exited).signal, "SIGTERM");
  assert(Date.now() - started < 5_000, `took ${Date.now() - started} ms`);

  // Ignores EOF and SIGTERM: only SIGKILL ends it.
  const stubborn = open(grace);
  const link = await stubborn.link;
  await call(link, stubborn.sink, "stubborn");
  started = Date.now();
  await link.close();
  const elapsed = Date.now() - started;
  assertEquals(await link.exited, { code: null, signal: "SIGKILL" });
  assert(elapsed >= 550, `waited both grace periods (${elapsed} ms)`);
  assert(elapsed < 6_000, `took ${elapsed} ms`);
  assertEquals(stubborn.sink.closedWith, [], "close() does not report closed");
});

test("stdio: a write stuck on a full pipe fails with transport when the server exits", async () => {
  // POSIX sh: never reads stdin, exits after a while.
  const sink = recorder();
  const link = await stdio({ command: "sh", args: ["-c", "sleep 1; exit 5"] }).open(sink);
  const big = { jsonrpc: "2.0" as const, method: "big", params: { pad: "x".repeat(1 << 20) } };
  const error = await assertRejects(() => link.send(big), McpError);
  assertEquals(error.kind, "transport");
  await waitFor("closed", () => sink.closedWith.length > 0);
  assertStringIncludes(sink.closedWith[0].message, "code 5");
  await assertRejects(() => link.send({ jsonrpc: "2.0", method: "late" }), McpError, "exited");
  await link.close();
});

test("stdio: the fixture MCP server runs as a stdio script", async () => {
  const dual = open({ ...fixture, env: { FIXTURE_BANNER: "fixture up" } });
  const link = await dual.link;
  const discover = await call(link, dual.sink, "server/discover", {
    _meta: {
      "io.modelcontextprotocol/protocolVersion": "2026-07-28",
      "io.modelcontextprotocol/clientCapabilities": {},
    },
  });
  assert(Array.isArray(discover.result?.supportedVersions), "a DiscoverResult");
  await waitFor("the banner", () => link.stderrTail().includes("fixture up"));
  await link.close();
  assertEquals((await link.exited).code, 0);

  const crashing = open({
    ...fixture,
    env: { FIXTURE_KNOBS: JSON.stringify({ mode: "legacy-only", exitMidRequest: "echo" }) },
  });
  const legacy = await crashing.link;
  const init = await call(legacy, crashing.sink, "initialize", {
    protocolVersion: "2025-11-25",
    capabilities: {},
    clientInfo: { name: "test", version: "1" },
  });
  assertEquals(init.result?.protocolVersion, "2025-11-25");
  await legacy.send({ jsonrpc: "2.0", method: "notifications/initialized" });
  await legacy.send({
    jsonrpc: "2.0",
    id: 1000,
    method: "tools/call",
    params: { name: "echo", arguments: { message: "hi" } },
  });
  await waitFor("closed", () => crashing.sink.closedWith.length > 0);
  assertEquals(crashing.sink.closedWith[0].kind, "transport");
  assertStringIncludes(crashing.sink.closedWith[0].message, "exit during echo");
  await legacy.close();
});

test("stdio: a missing command rejects open() with a transport McpError", async () => {
  const transport = stdio({ command: "conduit-no-such-command-xyz", env: { TOKEN: "s3cret" } });
  const error = await assertRejects(() => transport.open(recorder()), McpError);
  assertEquals([error.kind, error.reason], ["transport", "command_not_found"]);
  assert(!error.message.includes("s3cret"));
  assertEquals(transport.stderrTail(), "");
});

test("stdio: spawn is injectable, and a foreign spawn error becomes transport", async () => {
  const seen: SpawnOptions[] = [];
  const counting = stdio({
    ...toy,
    env: { A: "1" },
    spawn: (options) => (seen.push(options), spawnProcess(options)),
  });
  const sink = recorder();
  const link = await counting.open(sink);
  assertEquals(seen.length, 1);
  assertEquals(seen[0].env, { A: "1" });
  assertEquals(seen[0].inheritEnv, "safe");
  assertEquals(seen[0].processGroup, undefined, "a group of its own by default");
  await link.close();
  // processGroup: false reaches the spawner, and a call still round-trips.
  const sameGroup = stdio({
    ...toy,
    processGroup: false,
    spawn: (options) => (seen.push(options), spawnProcess(options)),
  });
  const inGroup = recorder();
  const kept = await sameGroup.open(inGroup);
  assertEquals(seen[1].processGroup, false);
  assertEquals((await call(kept, inGroup, "pid")).result, { pid: kept.pid });
  await kept.close();
  const broken = stdio({
    command: "x",
    spawn: () => {
      throw new Error("boom");
    },
  });
  const error = await assertRejects(() => broken.open(recorder()), McpError);
  assertEquals([error.kind, error.reason], ["transport", "spawn_failed"]);
});

test("stdio: invalid options throw TypeError or RangeError naming the option", () => {
  assertThrows(() => stdio({ command: "" }), TypeError, "command");
  assertThrows(() => stdio({ command: "x", args: "a" as unknown as string[] }), TypeError, "args");
  assertThrows(
    () => stdio({ command: "x", env: { A: 1 as unknown as string } }),
    TypeError,
    "env.A",
  );
  assertThrows(() => stdio({ command: "x", stderr: "pipe" as "buffer" }), TypeError, "stderr");
  assertThrows(() => stdio({ command: "x", maxMessageBytes: 0 }), RangeError, "maxMessageBytes");
  assertThrows(() => stdio({ command: "x", closeGracePeriod: -1 }), RangeError, "closeGracePeriod");
  assertThrows(() => stdio({ command: "x", terminateGracePeriod: NaN }), RangeError, "terminate");
  assertThrows(
    () => stdio({ command: "x", processGroup: 1 as unknown as boolean }),
    TypeError,
    "processGroup",
  );
});

/** A process double whose stdin records each write and can hold or fail them. */
function fakeChild() {
  const writes: string[] = [];
  const gates: { release: () => void; fail: (error: Error) => void }[] = [];
  let holding = true;
  let exit!: (status: { code: number | null; signal: null }) => void;
  let endStdout!: () => void;
  const child = {
    pid: 4242,
    stdin: new WritableStream<Uint8Array>({
      write(chunk) {
        writes.push(new TextDecoder().decode(chunk));
        if (!holding) return;
        return new Promise<void>((resolve, reject) => {
          gates.push({ release: resolve, fail: reject });
        });
      },
    }),
    stdout: new ReadableStream<Uint8Array>({
      start(controller) {
        endStdout = () => controller.close();
      },
    }),
    stderr: new ReadableStream<Uint8Array>({ start: (controller) => controller.close() }),
    exited: new Promise<{ code: number | null; signal: null }>((resolve) => (exit = resolve)),
    kill() {
      endStdout();
      exit({ code: null, signal: null });
      return true;
    },
  };
  return {
    child,
    writes,
    gates,
    hold(on: boolean) {
      holding = on;
    },
    /** The process exits with `code`. */
    end(code: number) {
      endStdout();
      exit({ code, signal: null });
    },
  };
}

const note = (n: number): JsonRpcMessage => ({ jsonrpc: "2.0", method: "n", params: { n } });
const tick = () => new Promise((resolve) => setTimeout(resolve, 0));

test("stdio: one write in flight; messages queued meanwhile go in order in one write", async () => {
  const fake = fakeChild();
  const link = await stdio({ command: "x", spawn: () => fake.child, closeGracePeriod: 10 })
    .open(recorder());
  const order: number[] = [];
  const sends = [1, 2, 3, 4].map((n) => link.send(note(n)).then(() => void order.push(n)));
  await tick();
  assertEquals(fake.writes.length, 1, "the first message is written at once, alone");
  assertEquals(fake.writes[0], JSON.stringify(note(1)) + "\n");
  fake.gates[0].release();
  await tick();
  assertEquals(fake.writes.length, 2, "the rest is coalesced into the second write");
  assertEquals(fake.writes[1], [2, 3, 4].map((n) => JSON.stringify(note(n)) + "\n").join(""));
  assertEquals(order, [1], "a batch settles only when its write is done");
  fake.hold(false);
  fake.gates[1].release();
  await Promise.all(sends);
  assertEquals(order, [1, 2, 3, 4]);
  await link.send(note(5));
  assertEquals(fake.writes.length, 3);
  await link.close();
});

test("stdio: a failed write rejects every message of its batch, and no later send hangs", async () => {
  const fake = fakeChild();
  const link = await stdio({ command: "x", spawn: () => fake.child, closeGracePeriod: 10 })
    .open(recorder());
  const first = link.send(note(1));
  await tick();
  const batch = Promise.allSettled([2, 3].map((n) => link.send(note(n))));
  fake.gates[0].release();
  await first;
  await tick();
  assertEquals(fake.writes[1], JSON.stringify(note(2)) + "\n" + JSON.stringify(note(3)) + "\n");
  const later = Promise.allSettled([link.send(note(4))]); // queued behind the batch [2, 3]
  fake.gates[1].fail(new Error("EPIPE"));
  for (const outcome of await batch) {
    assert(outcome.status === "rejected");
    const error = outcome.reason as McpError;
    assert(error instanceof McpError);
    assertEquals([error.kind, error.reason], ["transport", "write_failed"]);
    assertEquals((error.cause as Error).message, "EPIPE");
  }
  // The stream is errored now: the next batch fails the same way instead of hanging.
  const [outcome] = await later;
  assert(outcome.status === "rejected");
  assertEquals((outcome.reason as McpError).reason, "write_failed");
  await link.close();
});

test("stdio: a write that fails as the process exits rejects with how it exited", async () => {
  const fake = fakeChild();
  const sink = recorder();
  const link = await stdio({ command: "x", spawn: () => fake.child, closeGracePeriod: 10 })
    .open(sink);
  const sent = link.send(note(1)).then(() => undefined, (error: McpError) => error);
  await tick();
  // The pipe breaks first, the exit is seen a moment later (as under Deno).
  fake.gates[0].fail(new Error("Broken pipe"));
  await tick();
  fake.end(7);
  const error = (await sent)!;
  assert(error instanceof McpError, String(error));
  assertEquals([error.kind, error.reason], ["transport", "process_exited"]);
  assertEquals(error.message, "The server process exited with code 7");
  assertEquals(sink.closedWith.map((e) => e.message), [error.message]);
  // A message sent after the exit gets the same account.
  const late = await link.send(note(2)).then(() => undefined, (e: McpError) => e);
  assertEquals(late?.message, "The server process exited with code 7");
  await link.close();
});

test("stdio: a line that is not JSON-RPC goes to the sink's skipped, redacted, and a warning", async () => {
  const secret = "sk-skipped-line-0123456789";
  const sink = recorder();
  const lines: string[] = [];
  const transport = stdio({
    command: "sh",
    args: ["-c", 'echo "debug: key $API_KEY"; exit 0'],
    env: { API_KEY: secret },
  });
  await transport.open({ ...sink, skipped: (line) => void lines.push(line) });
  await waitFor("the process to end", () => sink.closedWith.length > 0);
  assertEquals(lines, ["debug: key [redacted]"]);
  assert(sink.warnings.some((w) => w.includes("not a JSON-RPC message")), sink.warnings.join());
  assert(!sink.warnings.join().includes(secret));
});

test("stdio: close() rejects messages still queued behind a write", async () => {
  const fake = fakeChild();
  const link = await stdio({ command: "x", spawn: () => fake.child, closeGracePeriod: 10 })
    .open(recorder());
  const sends = [1, 2, 3].map((n) => link.send(note(n)));
  await tick();
  const closing = link.close();
  for (const sent of sends) {
    const error = await assertRejects(() => sent, McpError);
    assertEquals(error.reason, "closed");
  }
  await closing;
  assertEquals(fake.writes.length, 1, "nothing is written after close()");
});

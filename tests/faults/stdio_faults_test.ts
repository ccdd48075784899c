// The fault suite over stdio: a real child process (tests/fixtures/fault_stdio_server.ts)
// that breaks the wire on purpose, in both eras. Every call settles once, with its own
// answer or a clear McpError, and the client goes on.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createClient } from "../../client/client.ts";
import type { ClientOptions, McpClient, ToolResult } from "../../client/types.ts";
import { isMcpError } from "../../protocol/errors.ts";
import { stdio } from "../../transports/stdio.ts";
import { assert, assertEquals, assertStringIncludes, scriptCommand, test } from "../_harness.ts";
import type { StdioFault } from "../fixtures/fault_stdio_server.ts";
import type { FixtureKnobs } from "../fixtures/server.ts";

const script = scriptCommand(new URL("../fixtures/fault_stdio_server.ts", import.meta.url));
const ERAS = [["modern", "dual"], ["legacy", "legacy-only"]] as const;

interface FaultyServer {
  client: McpClient;
  warnings: string[];
  /** The lines the server processes received, as `[pid, message]`, in order. */
  received(): [
    string,
    { id?: unknown; method?: string; params?: { arguments?: { message?: string } } },
  ][];
  [Symbol.asyncDispose](): Promise<void>;
}

function faultyServer(
  fault: StdioFault,
  knobs: FixtureKnobs,
  options: Partial<ClientOptions> = {},
  maxMessageBytes?: number,
): FaultyServer {
  const dir = mkdtempSync(join(tmpdir(), "conduit-faults-"));
  const log = join(dir, "received");
  const warnings: string[] = [];
  const client = createClient({
    transport: stdio({
      ...script,
      env: { FAULT: JSON.stringify(fault), FAULT_LOG: log, FIXTURE_KNOBS: JSON.stringify(knobs) },
      closeGracePeriod: 1_000,
      terminateGracePeriod: 1_000,
      ...(maxMessageBytes === undefined ? {} : { maxMessageBytes }),
    }),
    reconnect: { initialDelay: 20, maxDelay: 200, attempts: 3 },
    onWarning: (message) => warnings.push(message),
    ...options,
  });
  return {
    client,
    warnings,
    received() {
      let text = "";
      try {
        text = readFileSync(log, "utf8");
      } catch {
        // nothing received yet
      }
      return text.split("\n").filter(Boolean).map((row) => {
        const space = row.indexOf(" ");
        return [row.slice(0, space), JSON.parse(row.slice(space + 1))];
      });
    },
    async [Symbol.asyncDispose]() {
      await client.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

const textOf = (result: ToolResult) => String((result.content[0] as { text?: unknown }).text);

/** Sequential echo calls, each of which must get its own answer. */
async function echoes(client: McpClient, count: number): Promise<string[]> {
  const out: string[] = [];
  for (let i = 0; i < count; i++) {
    out.push(textOf(await client.callTool("echo", { message: `m${i}` })));
  }
  return out;
}

const expected = (count: number) => Array.from({ length: count }, (_, i) => `m${i}`);

for (const [era, mode] of ERAS) {
  test(`faults stdio [${era}]: garbage and cut-off lines are skipped with warnings`, async () => {
    await using server = faultyServer({ kind: "garbage" }, { mode });
    await server.client.ready(15_000);
    assertEquals(server.client.era(), era);
    assertEquals(await echoes(server.client, 3), expected(3));
    assert(server.warnings.length >= 9, `warnings: ${server.warnings.length}`);
    assert(!server.warnings.some((w) => w.includes("this is not JSON")), "garbage is not echoed");
  });

  test(`faults stdio [${era}]: lines written in pieces are joined`, async () => {
    await using server = faultyServer({ kind: "split" }, { mode });
    const calls = Array.from(
      { length: 10 },
      (_, i) => server.client.callTool("echo", { message: `m${i}` }),
    );
    assertEquals((await Promise.all(calls)).map(textOf), expected(10));
    assertEquals(server.warnings, []);
  });

  test(`faults stdio [${era}]: a duplicated response settles its call once, the copy goes nowhere`, async () => {
    await using server = faultyServer({ kind: "duplicate" }, { mode });
    assertEquals(await echoes(server.client, 4), expected(4));
    const sent = server.received().filter(([, m]) => m.method === "tools/call");
    assertEquals(sent.length, 4, "each call was sent once");
  });

  test(`faults stdio [${era}]: responses to unknown ids are dropped`, async () => {
    await using server = faultyServer({ kind: "unknown" }, { mode });
    assertEquals(await echoes(server.client, 3), expected(3));
    assertEquals((await server.client.listTools()).tools.length, 7);
  });

  test(`faults stdio [${era}]: a response before its request does not answer it`, async () => {
    await using server = faultyServer({ kind: "early" }, { mode });
    const answers = await echoes(server.client, 4);
    assertEquals(answers, expected(4), "no call took the early answer");
    const ids = server.received().flatMap(([, m]) => m.method === "tools/call" ? [m.id] : []);
    assertEquals(ids, ids.map((_, i) => Number(ids[0]) + i), "each early answer had a next id");
  });

  test(`faults stdio [${era}]: an oversized line is skipped, the call goes on`, async () => {
    await using server = faultyServer({ kind: "oversized", bytes: 8192 }, { mode }, {}, 4096);
    assertEquals(await echoes(server.client, 2), expected(2));
    assertEquals(
      server.warnings.filter((w) => w.includes("4096")).length,
      2,
      server.warnings.join("\n"),
    );
  });

  test(`faults stdio [${era}]: an oversized answer fails its call at once, the next goes on`, async () => {
    const fault: StdioFault = { kind: "oversized_answer", bytes: 8192 };
    await using server = faultyServer(fault, { mode }, { requestTimeout: 30_000 }, 4096);
    const error = await server.client.callTool("echo", { message: "big" }).then(
      () => undefined,
      (thrown) => thrown,
    );
    assert(isMcpError(error), String(error));
    assertEquals([error.kind, error.reason], ["protocol", "response_too_large"]);
    assertEquals(error.data, { limit: 4096 });
    assertStringIncludes(error.message, "maxMessageBytes (4096)");
    assertEquals(await echoes(server.client, 2), expected(2));
  });

  test(`faults stdio [${era}]: a crash mid-response with 50 calls in flight`, async () => {
    const fault: StdioFault = { kind: "crash", inFlight: 50, answered: 10 };
    await using server = faultyServer(fault, { mode });
    await server.client.ready(15_000);
    const settled = new Array(50).fill(0);
    const outcomes = await Promise.all(
      Array.from(
        { length: 50 },
        (_, i) =>
          server.client.callTool("echo", { message: `call-${i}` }).then(
            (result) => (settled[i]++, textOf(result)),
            (error) => (settled[i]++, error),
          ),
      ),
    );
    assertEquals(settled, new Array(50).fill(1), "each call settled exactly once");
    const answered = outcomes.filter((o) => typeof o === "string");
    assertEquals(answered.length, 10);
    for (const outcome of outcomes) {
      if (typeof outcome === "string") continue;
      assert(isMcpError(outcome), String(outcome));
      assertEquals(outcome.kind, "transport");
    }
    // The client reconnects (a new process) and works; nothing of the crash is sent again.
    assertEquals(textOf(await server.client.callTool("echo", { message: "after" })), "after");
    const calls = server.received().filter(([, m]) => m.method === "tools/call");
    const messages = calls.map(([, m]) => m.params?.arguments?.message);
    assertEquals(messages.length, 51, "no call was sent twice");
    assertEquals(new Set(messages).size, 51);
    assertEquals(new Set(calls.map(([pid]) => pid)).size, 2, "two server processes");
    assertEquals(settled, new Array(50).fill(1), "and none settled again later");
  });

  test(`faults stdio [${era}]: a stalled call times out; the process and the client stay`, async () => {
    await using server = faultyServer({ kind: "none" }, { mode, stall: "prompts/list" });
    await server.client.ready(15_000);
    const error = await server.client.listPrompts({ timeout: 50 }).then(() => undefined, (e) => e);
    assertEquals(error?.kind, "timeout");
    assertStringIncludes(error.message, "prompts/list");
    assertEquals(await echoes(server.client, 1), expected(1));
    const pids = new Set(server.received().map(([pid]) => pid));
    assertEquals(pids.size, 1, "no new process");
  });
}

// close() ends the server's whole process tree: a wrapper (bash -c, as npx or uvx would be)
// that ignores SIGTERM and stdin end-of-file, and the grandchild it started, which ignores
// SIGTERM too. Checked by pid in /proc (a zombie counts as gone).
import type { JsonRpcMessage } from "../../protocol/jsonrpc.ts";
import { spawnProcess } from "../../runtime/spawn.ts";
import { stdio } from "../../transports/stdio.ts";
import type { TransportSink } from "../../transports/transport.ts";
import { assert, assertEquals, test } from "../_harness.ts";

/**
 * Whether `pid` names a live process (not a zombie), read from `/proc` by a shell (Deno
 * reads `/proc` only with every permission).
 */
async function alive(pid: number): Promise<boolean> {
  const check = `s=$(cat /proc/${pid}/stat 2>/dev/null) || exit 1
case "$s" in *") Z "*) exit 1;; esac`;
  const child = spawnProcess({ command: "sh", args: ["-c", check] });
  await Promise.all([child.stdin.close(), child.stdout.cancel(), child.stderr.cancel()]);
  return (await child.exited).code === 0;
}

const both = async (pids: Pids) => [await alive(pids.wrapper), await alive(pids.grandchild)];

interface Pids {
  wrapper: number;
  grandchild: number;
}

/** A sink that resolves with the pids the wrapper announces. */
function pidSink(): TransportSink & { pids: Promise<Pids> } {
  const announced = Promise.withResolvers<Pids>();
  return {
    pids: announced.promise,
    message(message: JsonRpcMessage) {
      if ("method" in message && message.method === "pids") {
        announced.resolve(message.params as unknown as Pids);
      }
    },
    closed() {},
  };
}

// The grandchild ignores SIGTERM (an ignored signal stays ignored across exec) and never
// exits by itself; `$!` is its pid.
const GRANDCHILD = `sh -c 'trap "" TERM; while :; do sleep 1; done' &`;
const ANNOUNCE =
  `echo "{\\"jsonrpc\\":\\"2.0\\",\\"method\\":\\"pids\\",\\"params\\":{\\"wrapper\\":$$,\\"grandchild\\":$!}}"`;

const grace = { closeGracePeriod: 100, terminateGracePeriod: 200 };

test("process tree: close() ends a wrapper that ignores SIGTERM and stdin EOF, and its grandchild", async () => {
  const script = `trap '' TERM; ${GRANDCHILD} ${ANNOUNCE}; while :; do sleep 1; done`;
  const sink = pidSink();
  const link = await stdio({ command: "bash", args: ["-c", script], ...grace }).open(sink);
  const pids = await sink.pids;
  try {
    assertEquals(await both(pids), [true, true], "both run before close()");
  } finally {
    await link.close();
  }
  assertEquals(await link.exited, { code: null, signal: "SIGKILL" });
  assertEquals(await both(pids), [false, false], "neither runs after close()");
});

test("process tree: a wrapper that exits on stdin EOF does not leave its grandchild behind", async () => {
  // The wrapper ends politely when stdin closes; the grandchild it started would live on.
  const script = `${GRANDCHILD} ${ANNOUNCE}; read -r _ignored; exit 0`;
  const sink = pidSink();
  const link = await stdio({ command: "bash", args: ["-c", script], ...grace }).open(sink);
  const pids = await sink.pids;
  try {
    assert(await alive(pids.grandchild), "the grandchild runs before close()");
  } finally {
    await link.close();
  }
  assertEquals(await link.exited, { code: 0, signal: null });
  assertEquals(await alive(pids.grandchild), false, "the grandchild is gone after close()");
});

test("process tree: when the wrapper dies on its own, what it started is ended too", async () => {
  // The wrapper exits at once after starting the grandchild: the link reports the exit, and
  // the orphaned grandchild is ended without any close().
  const script = `${GRANDCHILD} ${ANNOUNCE}; exit 3`;
  const sink = pidSink();
  const link = await stdio({ command: "bash", args: ["-c", script], ...grace }).open(sink);
  const pids = await sink.pids;
  try {
    assertEquals(await link.exited, { code: 3, signal: null });
    const end = Date.now() + 10_000;
    while (await alive(pids.grandchild) && Date.now() < end) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    assertEquals(await alive(pids.grandchild), false, "the grandchild is gone");
  } finally {
    await link.close();
  }
});

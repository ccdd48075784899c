// The first connect is bounded and says why it failed: a server that never answers, one that
// exits at once, one that writes its logs to stdout (real child processes).
import { connect, DEFAULT_READY_TIMEOUT, isMcpError, type McpError } from "../../mod.ts";
import { assert, assertEquals, assertStringIncludes, test } from "../_harness.ts";

const QUICK_CLOSE = { closeGracePeriod: 200, terminateGracePeriod: 500 };

async function failure(promise: Promise<unknown>): Promise<McpError> {
  const error = await promise.then(() => undefined, (e) => e);
  assert(isMcpError(error), `expected an McpError, got ${error}`);
  return error;
}

/**
 * Runs `body` with every timer of exactly `ms` armed to fire after `fast` ms instead, and
 * reports when each such timer fired (other timers are left alone).
 */
async function withFastTimer<T>(
  ms: number,
  fast: number,
  body: () => Promise<T>,
): Promise<{ value: T; fired: number[] }> {
  const g = globalThis as { setTimeout: typeof setTimeout };
  const real = g.setTimeout;
  const fired: number[] = [];
  g.setTimeout =
    ((callback: (...args: unknown[]) => void, delay?: number, ...args: unknown[]) =>
      delay === ms
        ? real(() => {
          fired.push(Date.now());
          callback(...args);
        }, fast)
        : real(callback, delay, ...args)) as typeof setTimeout;
  try {
    return { value: await body(), fired };
  } finally {
    g.setTimeout = real;
  }
}

test(
  "first connect: a server that never answers fails at the default readyTimeout, saying so",
  async () => {
    assertEquals(DEFAULT_READY_TIMEOUT, 30_000);
    const warnings: string[] = [];
    // The default deadline's timer (30 000 ms) is the one thing that ends the wait: it is run
    // after 300 ms instead, so the test shows which timer fails the connect without waiting 30 s.
    const { value: error, fired } = await withFastTimer(DEFAULT_READY_TIMEOUT, 300, async () => {
      const error = await failure(
        connect({ command: "sleep", args: ["1000"], ...QUICK_CLOSE }, {
          onWarning: (message) => warnings.push(message),
        }),
      );
      return { error, at: Date.now() };
    });
    assertEquals(fired.length, 1, "one timer of the default readyTimeout was armed and fired");
    assert(error.at >= fired[0], "the connect failed when that timer fired, not before");
    assertEquals([error.error.kind, error.error.reason], ["timeout", "not_ready"]);
    assertEquals(
      error.error.message.split("\n")[0],
      "The server was not ready within 30000 ms (1 attempt): it did not answer the handshake. " +
        'If it is slow to start, raise readyTimeout; stderr: "inherit" shows what it prints',
    );
  },
  { timeout: 60_000 },
);

test("first connect: readyTimeout bounds it, and what the server wrote is in the error", async () => {
  const script = [
    "printf 'Server started on stdio \\033[31mport\\033[0m 3000 key=%s\\n' \"$API_KEY\"",
    "echo 'second line'",
    "echo 'loading config' >&2",
    "sleep 1000",
  ].join("; ");
  const started = Date.now();
  const error = await failure(
    connect({
      command: "sh",
      args: ["-c", script],
      env: { API_KEY: "sk-live-0123456789abcdef" },
      ...QUICK_CLOSE,
    }, {
      readyTimeout: 1_500,
      onWarning: () => {},
    }),
  );
  const took = Date.now() - started;
  assert(took < 5_000, `failed after ${took} ms`);
  assertEquals([error.kind, error.reason], ["timeout", "not_ready"]);
  assertStringIncludes(error.message, "The server was not ready within 1500 ms (1 attempt)");
  assertStringIncludes(
    error.message,
    "its stdout had 2 lines that are not JSON-RPC (a server must write only protocol messages " +
      'to stdout, and its logs to stderr), the first: "Server started on stdio port 3000 key=[redacted]"',
  );
  assertStringIncludes(error.message, "its stderr ends with:\nloading config");
  assert(!error.message.includes("sk-live"), "the key is redacted");
  assert(!error.message.includes("\x1b"), "escape sequences are removed");
});

test("first connect: a long skipped line is cut short", async () => {
  const error = await failure(
    connect({
      command: "sh",
      args: ["-c", "printf 'x%.0s' $(seq 1 500); echo; sleep 1000"],
      ...QUICK_CLOSE,
    }, {
      readyTimeout: 1_500,
      onWarning: () => {},
    }),
  );
  assertStringIncludes(error.message, `the first: "${"x".repeat(200)}…"`);
});

test("first connect: a server that exits at once is retried aloud, and the error counts the attempts", async () => {
  const warnings: string[] = [];
  const started = Date.now();
  const error = await failure(
    connect({ command: "sh", args: ["-c", "echo 'cannot find module ./server.js' >&2; exit 3"] }, {
      reconnect: { attempts: 2, initialDelay: 50, maxDelay: 100, jitter: 0 },
      onWarning: (message) => warnings.push(message),
    }),
  );
  const took = Date.now() - started;
  assert(took < 10_000, `failed after ${took} ms`);
  assertEquals([error.kind, error.reason], ["transport", "process_exited"]);
  assert(
    /^Gave up connecting after 3 attempts in \d+\.\d s: The server process exited with code 3; its stderr ends with:\ncannot find module \.\/server\.js$/
      .test(error.message),
    error.message,
  );
  assertEquals(warnings, [
    "Connecting failed (attempt 1): The server process exited with code 3; its stderr ends with: cannot find module ./server.js; trying again in 50 ms",
    "Connecting failed (attempt 2): The server process exited with code 3; its stderr ends with: cannot find module ./server.js; trying again in 100 ms",
  ]);
});

test(
  "first connect: with default options a server that exits at once fails within seconds",
  async () => {
    const started = Date.now();
    const error = await failure(
      connect({ command: "sh", args: ["-c", "exit 1"] }, { onWarning: () => {} }),
    );
    const took = Date.now() - started;
    assert(took < 15_000, `failed after ${took} ms`);
    assert(error.message.startsWith("Gave up connecting after 6 attempts in "), error.message);
  },
  { timeout: 30_000 },
);

test("connect: a readyTimeout that is not a positive number is a TypeError", async () => {
  for (const readyTimeout of [0, -1, "5" as unknown as number, Number.NaN]) {
    const error = await connect({ command: "true" }, { readyTimeout }).then(
      () => undefined,
      (e) => e,
    );
    assert(error instanceof TypeError, `readyTimeout ${readyTimeout}`);
  }
});

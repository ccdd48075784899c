/**
 * Child processes for the benchmarks, the same shape under Deno and Bun, and reading their
 * output as lines or text.
 *
 * @module
 */

import { g, runtime } from "./_runtime.ts";

/** A child process with piped stdio, the same shape under both runtimes. */
export interface Child {
  readonly pid: number;
  write(bytes: Uint8Array): void;
  endInput(): void;
  readonly stdout: ReadableStream<Uint8Array>;
  readonly stderr: ReadableStream<Uint8Array> | null;
  readonly exited: Promise<number>;
  kill(signal?: string): void;
}

/** How to spawn: which outputs to pipe (default stdout only) and extra variables. */
export interface SpawnOptions {
  stdout?: "pipe" | "ignore";
  stderr?: "pipe" | "ignore";
  env?: Record<string, string>;
  /**
   * `"own"`: the child leads a session of its own (`setsid`, as our stdio transport starts a
   * server), which where Linux schedules by session is a scheduling group of its own too.
   */
  session?: "own" | "same";
}

/** Spawns `argv` with piped stdin (and stdout, and stderr when asked). */
export function spawn(argv: string[], options: SpawnOptions = {}): Child {
  const stderr = options.stderr ?? "ignore";
  const stdout = options.stdout ?? "pipe";
  if (runtime === "bun") {
    const child = g.Bun!.spawn(argv, {
      stdin: "pipe",
      stdout,
      stderr,
      env: { ...g.Bun!.env, ...options.env },
      detached: options.session === "own",
    });
    return {
      pid: child.pid,
      write(bytes) {
        child.stdin.write(bytes);
        child.stdin.flush();
      },
      endInput() {
        child.stdin.end();
      },
      stdout: stdout === "pipe" ? child.stdout : new ReadableStream(),
      stderr: stderr === "pipe" ? child.stderr : null,
      exited: child.exited,
      kill: (signal) => child.kill(signal),
    };
  }
  const deno = g.Deno!;
  const child = new deno.Command(argv[0], {
    args: argv.slice(1),
    stdin: "piped",
    stdout: stdout === "pipe" ? "piped" : "null",
    stderr: stderr === "pipe" ? "piped" : "null",
    env: options.env,
    detached: options.session === "own",
  }).spawn();
  const writer = child.stdin.getWriter();
  return {
    pid: child.pid,
    write(bytes) {
      writer.write(bytes).catch(() => {});
    },
    endInput() {
      writer.close().catch(() => {});
    },
    stdout: stdout === "pipe" ? child.stdout : new ReadableStream(),
    stderr: stderr === "pipe" ? child.stderr : null,
    exited: child.status.then((s) => s.code),
    kill(signal) {
      try {
        child.kill(signal ?? "SIGTERM");
      } catch {
        // already gone
      }
    },
  };
}

/** Calls `onLine` with each line of `stream` until it ends. */
export async function readLines(
  stream: ReadableStream<Uint8Array>,
  onLine: (line: string) => void,
): Promise<void> {
  const decoder = new TextDecoder();
  let rest = "";
  for await (const chunk of stream) {
    rest += decoder.decode(chunk, { stream: true });
    let start = 0;
    for (;;) {
      const end = rest.indexOf("\n", start);
      if (end < 0) break;
      onLine(rest.slice(start, end));
      start = end + 1;
    }
    if (start > 0) rest = rest.slice(start);
  }
  if (rest !== "") onLine(rest);
}

/** Reads a whole stream as text. */
export async function readText(stream: ReadableStream<Uint8Array>): Promise<string> {
  return await new Response(stream).text();
}

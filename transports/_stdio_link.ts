/**
 * One stdio link: the machinery behind `stdio().open()`, and how it ends its server's
 * process tree. The child runs in a process group of its own (see `runtime/spawn.ts`), so
 * what a wrapper (`npx`, `uvx`, `bash -c`) started is signalled with it, even once the
 * wrapper itself has exited. Private to the package.
 *
 * @module
 */

import { McpError } from "../protocol/errors.ts";
import type { DecodeResult, JsonRpcMessage } from "../protocol/jsonrpc.ts";
import { decodeMessage } from "../protocol/decode.ts";
import { sanitizeText } from "../protocol/text.ts";
import {
  type ChildProcess,
  type ExitStatus,
  type KillSignal,
  writeParentStderr,
} from "../runtime/spawn.ts";
import { counted } from "./census.ts";
import { leadingResponseId, lineSplitter } from "./_lines.ts";
import { type Pump, pumpStream } from "./_pump.ts";
import { byteRing } from "./_bytes.ts";
import type { StdioLink, StdioStderr } from "./stdio_types.ts";
import type { TransportSink } from "./transport.ts";
import { startTimer } from "../clock/timer.ts";

/** How long an exited process's pipes may take to drain (a grandchild may hold them). */
const DRAIN_MS = 1_000;
/** How much stderr goes into the message of an exit error. */
const MESSAGE_TAIL_CHARS = 1_000;

function messageTail(text: string): string {
  const trimmed = text.trim();
  if (trimmed.length <= MESSAGE_TAIL_CHARS) return trimmed;
  return "…" + trimmed.slice(-MESSAGE_TAIL_CHARS).trimStart();
}

/** How much of a skipped stdout line goes into a message. */
const SKIPPED_LINE_CHARS = 200;

/** What a link saw on stdout that was not JSON-RPC: how many lines, and the first. */
interface Skipped {
  count: number;
  first?: string;
}

/** A skipped line, made fit for a message: visible characters only, one line, cut short. */
function shortLine(line: string): string {
  const clean = sanitizeText(line, { maxBytes: SKIPPED_LINE_CHARS * 4 }).replace(/\s+/g, " ")
    .trim();
  return clean.length <= SKIPPED_LINE_CHARS ? clean : clean.slice(0, SKIPPED_LINE_CHARS) + "…";
}

/** The sentence about lines skipped on stdout, or `""` when there were none. */
function skippedText(skipped: Skipped): string {
  if (skipped.count === 0) return "";
  const lines = skipped.count === 1 ? "1 line" : `${skipped.count} lines`;
  return `its stdout had ${lines} that ${skipped.count === 1 ? "is" : "are"} not JSON-RPC ` +
    `(a server must write only protocol messages to stdout, and its logs to stderr), ` +
    `the first: ${JSON.stringify(skipped.first ?? "")}`;
}

/** What the server wrote that may explain a failure: skipped stdout lines, the stderr tail. */
function diagnosis(skipped: Skipped, stderr: string): string {
  const tail = messageTail(stderr);
  const parts = [skippedText(skipped), tail ? `its stderr ends with:\n${tail}` : ""];
  return parts.filter((part) => part !== "").join("; ");
}

function exitError(
  status: ExitStatus,
  skipped: Skipped,
  stderr: string,
  envWarning: string | undefined,
): McpError {
  const how = status.signal
    ? `was killed by ${status.signal}`
    : `exited with code ${status.code ?? "unknown"}`;
  const seen = diagnosis(skipped, stderr);
  const hint = envWarning === undefined ? "" : ` (${envWarning})`;
  return new McpError(
    `The server process ${how}${hint}${seen ? `; ${seen}` : ""}`,
    { kind: "transport", reason: "process_exited" },
  );
}

/** The most characters coalesced into one write to stdin (a longer line goes alone). */
const MAX_BATCH_CHARS = 1 << 20;
const utf8 = new TextDecoder();

/** Lines written to stdin together, in order, and how their sends settle (together). */
interface Batch {
  lines: string[];
  chars: number;
  /** What each `send()` of the batch returns. */
  done: Promise<void>;
  resolve(): void;
  reject(error: McpError): void;
}

/** A new, empty batch. */
function newBatch(): Batch {
  const { promise, resolve, reject } = Promise.withResolvers<void>();
  return { lines: [], chars: 0, done: promise, resolve, reject };
}

/** What a link needs from the transport's options (validated by `stdio`). */
export interface LinkSettings {
  /** What to do with stderr. */
  stderr: StdioStderr;
  /** How many bytes of stderr to keep. */
  stderrTailBytes: number;
  /** The longest line accepted from stdout. */
  maxMessageBytes: number;
  /** Milliseconds between closing stdin and SIGTERM. */
  closeGracePeriod: number;
  /** Milliseconds between SIGTERM and SIGKILL. */
  terminateGracePeriod: number;
}

/**
 * Runs one link over a spawned server process: reads stdout into messages, drains stderr,
 * writes messages to stdin, reports an exit once, and escalates on `close()`.
 *
 * @param child The server process.
 * @param sink Where messages and the end of the link go.
 * @param settings The validated options.
 * @returns The link.
 */
export function startLink(
  child: ChildProcess,
  sink: TransportSink,
  settings: LinkSettings,
): StdioLink {
  const encoder = new TextEncoder();
  const ring = byteRing(settings.stderr === "ignore" ? 0 : settings.stderrTailBytes);
  const writer = child.stdin.getWriter();
  const direct = child.writeNow;
  writer.closed.catch(() => {});
  // The batches not written yet (queued or being written); `batches` is the queue.
  const pendingWrites = new Set<Batch>();
  const batches: Batch[] = [];
  counted("stdio.writes", () => pendingWrites.size);
  let writing = false; // a write is in flight
  const readers: Pump[] = [];
  let status: ExitStatus | undefined;
  let closing = false; // close() was called
  let ended = false; // no more writes: closing, exited, or stdout gone
  let reported = false;
  let closePromise: Promise<void> | undefined;
  const skipped: Skipped = { count: 0 };
  // The exit as an error, once what the server wrote has been read (undefined when closing).
  let settleExit!: (error: McpError | undefined) => void;
  const exitReport = new Promise<McpError | undefined>((resolve) => settleExit = resolve);

  const warn = (text: string) => {
    try {
      sink.warn?.(`stdio: ${text}`);
    } catch {
      // A throwing logger must not break the link.
    }
  };

  // Said before anything else: the server was started without variables it should have.
  if (child.envWarning !== undefined) warn(child.envWarning);

  const report = (error: McpError) => {
    if (reported || closing) return;
    reported = true;
    ended = true;
    writer.abort().catch(() => {}); // release stdin; queued writes already failed
    try {
      sink.closed(error);
    } catch (thrown) {
      warn(`the closed handler threw: ${(thrown as Error)?.name ?? "error"}`);
    }
  };

  const failWrites = (error: McpError) => {
    batches.length = 0;
    for (const batch of pendingWrites) batch.reject(error);
    pendingWrites.clear();
  };

  /**
   * Queues one serialized line. One write is in flight at a time; lines queued meanwhile
   * are coalesced (in order) into the next write, at most `MAX_BATCH_CHARS` per write. The
   * first line of a burst goes out at once, so the server starts on it while the rest of
   * the burst (the requests made in the same turn) gathers into one write.
   */
  const enqueue = (line: string): Promise<void> => {
    let batch = batches[batches.length - 1];
    if (batch === undefined || batch.chars + line.length > MAX_BATCH_CHARS) {
      batch = newBatch();
      batches.push(batch);
      pendingWrites.add(batch);
    }
    batch.lines.push(line);
    batch.chars += line.length;
    if (!writing) void drain();
    return batch.done;
  };

  /**
   * Why a write failed: a process that exited (the usual cause: it died at start) is reported
   * by its exit, with what it wrote, as the link's end is; else the write error.
   */
  async function writeFailure(error: unknown): Promise<McpError> {
    if (!closing && (status !== undefined || await within(child.exited, DRAIN_MS))) {
      const exit = await exitReport;
      if (exit !== undefined) {
        return new McpError(exit.message, { kind: "transport", reason: exit.reason, cause: error });
      }
    }
    return new McpError("Cannot write to the server process", {
      kind: "transport",
      reason: status ? "process_exited" : "write_failed",
      cause: error,
    });
  }

  /** Writes the queued batches one at a time; a failed write rejects its whole batch. */
  async function drain(): Promise<void> {
    writing = true;
    try {
      for (let batch = batches.shift(); batch !== undefined; batch = batches.shift()) {
        const { lines } = batch;
        let failure: McpError | undefined;
        try {
          const text = lines.length === 1 ? lines[0] : lines.join("");
          // A write the pipe took at once still yields a turn: the lines queued in it join
          // the next write instead of each costing one.
          await (direct === undefined ? writer.write(encoder.encode(text)) : direct(text));
        } catch (error) {
          failure = await writeFailure(error);
        }
        // Gone from the set: failWrites already rejected it.
        if (!pendingWrites.delete(batch)) continue;
        if (failure) batch.reject(failure);
        else batch.resolve();
      }
    } finally {
      writing = false;
    }
  }

  /** Delivers a decoded line: `line` is its text, or a long one's first bytes. */
  function deliver(decoded: DecodeResult, line: string | Uint8Array): void {
    if (!decoded.ok) {
      const text = typeof line === "string" ? line : utf8.decode(line);
      if (skipped.count++ === 0) skipped.first = shortLine(text);
      // A viewer (the CLI's --verbose) sees the line itself, redacted by the guard.
      try {
        sink.skipped?.(text);
      } catch {
        // A throwing viewer must not break the link.
      }
      // The line itself is not echoed in the warning (each one would be); errors quote the first.
      warn(`skipped a line from the server that is not a JSON-RPC message (${decoded.reason})`);
      if (decoded.id !== undefined) sink.malformed?.(decoded.id, decoded);
      return;
    }
    try {
      sink.message(decoded.message);
    } catch (error) {
      warn(`the message handler threw: ${(error as Error)?.name ?? "error"}`);
    }
  }

  const splitter = lineSplitter({
    maxLineBytes: settings.maxMessageBytes,
    onLine(line) {
      if (!closing) deliver(decodeMessage(line), line);
    },
    // A line past 1 MiB, read from its bytes: a refused one is shown by its first bytes.
    onMessage(read, head) {
      if (!closing) deliver(read, head);
    },
    onOversized(bytes, head) {
      // An answer whose first bytes show its id fails its request at once (as over HTTP).
      const limit = settings.maxMessageBytes;
      const detail = `a ${bytes}-byte message, over maxMessageBytes (${limit})`;
      const id = closing ? undefined : leadingResponseId(utf8.decode(head));
      if (id !== undefined && sink.malformed) {
        sink.malformed(id, { reason: "too_large", detail, limit });
      } else warn(`skipped ${detail}`);
    },
  });

  function pump(
    stream: ReadableStream<Uint8Array>,
    onChunk: (chunk: Uint8Array) => void,
    reuse = false,
  ): Promise<void> {
    const reading = pumpStream(stream, onChunk, reuse);
    readers.push(reading);
    return reading.done;
  }

  // The splitter copies what it holds: stdout may be read into one reused buffer.
  const stdoutDone = pump(child.stdout, (chunk) => splitter.push(chunk), true)
    .then(() => splitter.end());

  const forward = settings.stderr;
  const stderrDecoder = new TextDecoder();
  const stderrDone = pump(child.stderr, (chunk) => {
    ring.write(chunk);
    if (forward === "inherit") writeParentStderr(chunk);
    else if (typeof forward === "function") {
      try {
        const text = stderrDecoder.decode(chunk, { stream: true });
        if (text) forward(text);
      } catch {
        // A throwing stderr callback must not break the link.
      }
    }
  });

  const cancelReaders = () => {
    for (const reader of readers) reader.cancel();
  };

  void child.exited.then(async (exit) => {
    status = exit;
    ended = true;
    if (closing) {
      failWrites(
        new McpError("The server process has exited", {
          kind: "transport",
          reason: "process_exited",
        }),
      );
      return settleExit(undefined);
    }
    // Deliver what the server wrote before it ended, and read its last words on stderr.
    const drained = await within(Promise.all([stdoutDone, stderrDone]), DRAIN_MS);
    if (!drained) cancelReaders();
    const error = exitError(exit, skipped, ring.text(), child.envWarning);
    settleExit(error);
    failWrites(error); // writes waiting meanwhile fail with the exit and what the server wrote
    report(error);
    // What the process started may live on (a wrapper's server): end it too.
    if (child.treeAlive?.()) void terminateOnce();
  });

  // The server closed its stdout but lives on: nothing more can arrive, so end the link.
  void stdoutDone.then(async () => {
    if (closing || status) return;
    if (await within(child.exited, DRAIN_MS)) return; // the exit handler reports
    if (closing) return;
    report(
      new McpError("The server process closed its stdout", {
        kind: "transport",
        reason: "stdout_closed",
      }),
    );
    void terminateOnce();
  });

  /** Ends the process and what it started (see `endProcessTree`), then its pipes. */
  async function terminate(): Promise<void> {
    ended = true;
    writer.close().catch(() => {}); // not awaited: a full pipe would keep it pending
    await endProcessTree(child, settings);
    if (!(await within(Promise.all([stdoutDone, stderrDone]), 100))) cancelReaders();
  }
  let terminating: Promise<void> | undefined;
  const terminateOnce = () => terminating ??= terminate();

  return {
    pid: child.pid,
    exited: child.exited,
    stderrTail: () => ring.text(),
    diagnose: () => diagnosis(skipped, ring.text()) || undefined,
    send(message: JsonRpcMessage): Promise<void> {
      if (ended && !closing && status !== undefined) {
        // The process exited: say so with what it wrote (once that has been read).
        return exitReport.then((exit) =>
          Promise.reject(
            exit ?? new McpError("The server process has exited", {
              kind: "transport",
              reason: "process_exited",
            }),
          )
        );
      }
      if (ended) {
        return Promise.reject(
          closing
            ? new McpError("The stdio link is closed", { kind: "transport", reason: "closed" })
            : new McpError("The server process has exited", {
              kind: "transport",
              reason: "process_exited",
            }),
        );
      }
      let line: string;
      try {
        line = JSON.stringify(message) + "\n";
      } catch (error) {
        return Promise.reject(
          new TypeError("The message cannot be serialized as JSON", { cause: error }),
        );
      }
      return enqueue(line);
    },
    setProtocol(): void {
      // stdio carries no protocol-dependent framing.
    },
    close(): Promise<void> {
      if (!closePromise) {
        closing = true;
        failWrites(
          new McpError("The stdio link is closed", { kind: "transport", reason: "closed" }),
        );
        closePromise = terminateOnce();
      }
      return closePromise;
    },
  };
}

/** How often a terminating process group is checked for survivors. */
const TREE_POLL_MS = 25;
/** The least time a SIGKILLed tree is given to go. */
const KILL_WAIT_MS = 1_000;

/** The grace periods of {@linkcode endProcessTree}. */
export interface StopGrace {
  /** Milliseconds between closing stdin and SIGTERM. */
  closeGracePeriod: number;
  /** Milliseconds between SIGTERM and SIGKILL. */
  terminateGracePeriod: number;
}

/** Resolves `true` when `promise` settles within `ms`, `false` otherwise. */
export function within(promise: Promise<unknown>, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    const timer = startTimer(() => resolve(false), ms);
    promise.then(
      () => (timer.clear(), resolve(true)),
      () => (timer.clear(), resolve(true)),
    );
  });
}

/**
 * Ends `child` and everything it started, once its stdin was closed: after
 * `closeGracePeriod` SIGTERM goes to the whole process group, after `terminateGracePeriod`
 * SIGKILL. A child without a process group (another platform, an injected spawner) is
 * signalled alone, as before.
 *
 * @param child The server process.
 * @param grace The grace periods.
 */
export async function endProcessTree(child: ChildProcess, grace: StopGrace): Promise<void> {
  let exited = false;
  void child.exited.then(() => exited = true);
  const alive = () => child.treeAlive?.() ?? !exited;
  const signal = (name: KillSignal) => child.killTree?.(name) ?? child.kill(name);
  const gone = async (ms: number): Promise<boolean> => {
    if (child.treeAlive === undefined) return await within(child.exited, ms);
    const end = Date.now() + ms;
    while (alive()) {
      const left = end - Date.now();
      if (left <= 0) return false;
      // Wakes at once when the child itself exits; what it started is polled.
      await within(child.exited, Math.min(TREE_POLL_MS, left));
    }
    return true;
  };
  await within(child.exited, grace.closeGracePeriod);
  if (!alive()) return;
  signal("SIGTERM");
  if (await gone(grace.terminateGracePeriod)) return;
  signal("SIGKILL");
  await gone(Math.max(grace.terminateGracePeriod, KILL_WAIT_MS));
}

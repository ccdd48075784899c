/**
 * The little I/O the example server needs, under Deno or Bun: stdin as lines, ordered and
 * batched writes to stdout, and exit. Logs go to stderr through `console.error`, which both
 * runtimes send there.
 *
 * @module
 */

interface DenoLike {
  args: string[];
  version: { deno: string };
  stdin: { readable: ReadableStream<Uint8Array> };
  stdout: { write(bytes: Uint8Array): Promise<number> };
  exit(code: number): never;
}

interface BunLike {
  version: string;
  stdin: { stream(): ReadableStream<Uint8Array> };
  stdout: { writer(): { write(bytes: Uint8Array): number; flush(): number | Promise<number> } };
}

const g = globalThis as unknown as {
  Deno?: DenoLike;
  Bun?: BunLike;
  process?: { argv: string[]; exit(code: number): never };
};

/** The runtime's name and version, e.g. `"deno 2.9.6"`. */
export const runtime: string = g.Bun
  ? `bun ${g.Bun.version}`
  : g.Deno
  ? `deno ${g.Deno.version.deno}`
  : "unknown";

/** The script's arguments. */
export const args: string[] = g.Deno ? g.Deno.args : g.process?.argv.slice(2) ?? [];

function rawWriter(): (bytes: Uint8Array) => Promise<void> {
  if (g.Bun) {
    const sink = g.Bun.stdout.writer();
    return async (bytes) => {
      sink.write(bytes);
      await sink.flush();
    };
  }
  if (g.Deno) {
    const stdout = g.Deno.stdout;
    return async (bytes) => {
      for (let rest = bytes; rest.length > 0;) rest = rest.subarray(await stdout.write(rest));
    };
  }
  throw new Error("The example server runs under Deno or Bun");
}

const encoder = new TextEncoder();
const writeBytes = rawWriter();
let pending = "";
let pumping: Promise<void> | undefined;

async function pump(): Promise<void> {
  // Whatever is queued while a write is in flight goes out in the next single write.
  while (pending !== "") {
    const chunk = pending;
    pending = "";
    await writeBytes(encoder.encode(chunk));
  }
  pumping = undefined;
}

/** Queues one line for stdout (the `\n` is added); lines go out in call order. */
export function writeLine(line: string): void {
  pending += line + "\n";
  pumping ??= pump();
}

/** Waits until every queued line has been written. */
export async function flush(): Promise<void> {
  while (pumping) await pumping;
}

/**
 * Reads stdin to its end and calls `onLine` with each line (without the `\n` or a trailing
 * `\r`), synchronously as each chunk arrives.
 */
export async function readLines(onLine: (line: string) => void): Promise<void> {
  const stream = g.Bun ? g.Bun.stdin.stream() : g.Deno!.stdin.readable;
  let rest = "";
  for await (const text of stream.pipeThrough(new TextDecoderStream())) {
    const buffer = rest + text;
    let start = 0;
    for (let end; (end = buffer.indexOf("\n", start)) !== -1; start = end + 1) {
      const line = buffer.slice(start, end);
      onLine(line.endsWith("\r") ? line.slice(0, -1) : line);
    }
    rest = buffer.slice(start);
  }
  if (rest !== "") onLine(rest);
}

/** Ends the process. */
export function exit(code: number): never {
  if (g.Deno) g.Deno.exit(code);
  return g.process!.exit(code);
}

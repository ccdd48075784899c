/**
 * The terminal the commands write to, as one object: standard output and error, whether
 * standard error is a TTY (the progress line is drawn only there), colours (only on a TTY,
 * never with `NO_COLOR`), the width, the environment, and Ctrl-C. `processTerminal()` builds
 * it from `node:process`, which Deno and Bun both provide; tests build their own.
 *
 * @module
 */

import process from "node:process";

/** Where the commands write and what they know of the terminal. */
export interface Terminal {
  /** Writes to standard output. */
  out(text: string): void;
  /** Writes to standard error. */
  err(text: string): void;
  /** Whether standard error is a terminal (the live progress line is drawn there). */
  readonly tty: boolean;
  /** Whether to colour the output. */
  readonly color: boolean;
  /** The terminal's width in columns (`Infinity` when output is not a terminal). */
  readonly columns: number;
  /** Reads an environment variable. */
  env(name: string): string | undefined;
  /** Calls `listener` on each Ctrl-C (SIGINT) until the returned function is called. */
  onInterrupt(listener: () => void): () => void;
  /** Ends the process at once (a second Ctrl-C); absent where there is no process to end. */
  exit?(code: number): void;
  /** The keyboard, where standard input is a terminal (the elicitation form reads it). */
  keys?: Keys;
}

/** Standard input read key by key (raw mode: Ctrl-C arrives as `\x03`, not as SIGINT). */
export interface Keys {
  /** Delivers what is typed to `onData` until the returned function is called. */
  read(onData: (text: string) => void): () => void;
}

/** The keyboard of this process, when standard input is a terminal. */
function processKeys(): Keys | undefined {
  const stdin = process.stdin as typeof process.stdin & { setRawMode?(on: boolean): unknown };
  if (stdin.isTTY !== true || typeof stdin.setRawMode !== "function") return undefined;
  return {
    read(onData) {
      const listener = (chunk: string | Uint8Array) =>
        onData(typeof chunk === "string" ? chunk : new TextDecoder().decode(chunk));
      stdin.setRawMode!(true);
      stdin.on("data", listener);
      stdin.resume();
      return () => {
        stdin.off("data", listener);
        stdin.setRawMode!(false);
        stdin.pause();
      };
    },
  };
}

/** Whether colours are on: only on a TTY, never with `NO_COLOR` set (to anything). */
export function colorOn(tty: boolean, noColor: string | undefined): boolean {
  return tty && noColor === undefined;
}

/**
 * The terminal of this process.
 *
 * @returns The process's terminal.
 */
export function processTerminal(): Terminal {
  const stdoutTty = process.stdout.isTTY === true;
  const stderrTty = process.stderr.isTTY === true;
  return {
    out: (text) => void process.stdout.write(text),
    err: (text) => void process.stderr.write(text),
    tty: stderrTty,
    color: colorOn(stdoutTty, process.env.NO_COLOR),
    columns: process.stdout.columns || process.stderr.columns ||
      (stdoutTty || stderrTty ? 80 : Infinity),
    env: (name) => process.env[name],
    onInterrupt(listener) {
      process.on("SIGINT", listener);
      return () => void process.off("SIGINT", listener);
    },
    exit: (code) => process.exit(code),
    keys: processKeys(),
  };
}

/** Resolves once what was written to standard output and error has been handed on. */
export function flushProcessOutput(): Promise<void> {
  const flushed = (stream: { write(text: string, done: () => void): unknown }) =>
    new Promise<void>((resolve) => stream.write("", () => resolve()));
  return Promise.all([flushed(process.stdout), flushed(process.stderr)]).then(() => {});
}

const CODES = { bold: 1, dim: 2, red: 31, green: 32, yellow: 33, cyan: 36 } as const;

/** A colour or weight {@linkcode paint} applies. */
export type Style = keyof typeof CODES;

/**
 * `text` in `style` when `on`, else as is.
 *
 * @example
 * ```ts
 * import { paint } from "./terminal.ts";
 *
 * if (paint(false, "red", "x") !== "x" || paint(true, "red", "x") !== "\x1b[31mx\x1b[0m") throw new Error();
 * ```
 */
export function paint(on: boolean, style: Style, text: string): string {
  return on ? `\x1b[${CODES[style]}m${text}\x1b[0m` : text;
}

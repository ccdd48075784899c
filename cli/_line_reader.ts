/**
 * Lines typed on the terminal, read key by key in raw mode: printable characters are echoed,
 * Backspace removes the last one, Enter ends the line, arrow keys and other escape sequences
 * are ignored, and Ctrl-C (or Ctrl-D on an empty line) ends the reading with `undefined`
 * (in raw mode Ctrl-C is a key, not a signal: the form answers `cancel` instead of the run
 * ending). What was typed ahead of a prompt is kept for it.
 *
 * @module
 */

import type { Keys } from "./terminal.ts";

/** Reads lines from the keyboard; `close` gives the terminal back. */
export interface LineReader {
  /** The next line (without its end), or `undefined` on Ctrl-C, Ctrl-D or `signal`. */
  line(signal?: AbortSignal): Promise<string | undefined>;
  /** Stops reading and leaves raw mode. */
  close(): void;
}

// deno-lint-ignore no-control-regex -- matching ESC is the point
const ESCAPE = /^\x1b(\[[0-?]*[ -/]*[@-~]|O.|.)?/;

/**
 * Starts reading `keys`, echoing to `echo`.
 *
 * @param keys The keyboard.
 * @param echo Writes what is typed back to the terminal.
 * @returns The reader.
 *
 * @example
 * ```ts
 * import { lineReader } from "./_line_reader.ts";
 *
 * let send = (_: string) => {};
 * const reader = lineReader({ read: (onData) => ((send = onData), () => {}) }, () => {});
 * const first = reader.line();
 * send("ab\x7fc\r");
 * if (await first !== "ac") throw new Error("unexpected");
 * const second = reader.line();
 * send("\x03");
 * if (await second !== undefined) throw new Error("unexpected");
 * reader.close();
 * ```
 */
export function lineReader(keys: Keys, echo: (text: string) => void): LineReader {
  let pending = "";
  let typed = "";
  let waiting: ((line: string | undefined) => void) | undefined;

  const pump = () => {
    while (waiting !== undefined && pending !== "") {
      const char = pending[0];
      if (char === "\x1b") {
        const match = ESCAPE.exec(pending)!;
        pending = pending.slice(match[0].length || 1);
        continue;
      }
      pending = pending.slice(char.length);
      if (char === "\r" || char === "\n") {
        if (char === "\r" && pending.startsWith("\n")) pending = pending.slice(1);
        const line = typed;
        typed = "";
        echo("\r\n");
        finish(line);
      } else if (char === "\x03" || (char === "\x04" && typed === "")) {
        typed = "";
        pending = "";
        echo("\r\n");
        finish(undefined);
      } else if (char === "\x7f" || char === "\b") {
        if (typed !== "") {
          const chars = [...typed];
          chars.pop();
          typed = chars.join("");
          echo("\b \b");
        }
      } else if (char === "\x15") {
        // Ctrl-U: the whole line.
        echo("\b \b".repeat([...typed].length));
        typed = "";
      } else if (char.codePointAt(0)! >= 0x20 && char !== "\x7f") {
        typed += char;
        echo(char);
      }
    }
  };
  const finish = (line: string | undefined) => {
    const resolve = waiting!;
    waiting = undefined;
    resolve(line);
  };
  const stop = keys.read((text) => {
    pending += text;
    pump();
  });
  let closed = false;
  return {
    line(signal) {
      if (closed || signal?.aborted) return Promise.resolve(undefined);
      return new Promise((resolve) => {
        const onAbort = () => {
          if (waiting === done) finish(undefined);
        };
        const done = (line: string | undefined) => {
          signal?.removeEventListener("abort", onAbort);
          resolve(line);
        };
        waiting = done;
        signal?.addEventListener("abort", onAbort, { once: true });
        pump();
      });
    },
    close() {
      if (closed) return;
      closed = true;
      stop();
      if (waiting !== undefined) finish(undefined);
    },
  };
}

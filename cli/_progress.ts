/**
 * The live progress line of a long call: a bar when the server gives a `total`, a spinner
 * otherwise, and the time elapsed; redrawn in place (`\r` and erase-line) on standard error,
 * only when it is a terminal, and erased when the call ends.
 *
 * @module
 */

import { startTimer, type Timer } from "../clock/timer.ts";
import type { Progress } from "../mod.ts";
import { clean } from "./_format.ts";
import type { Terminal } from "./terminal.ts";

let held = 0;

/**
 * Stops the progress and connecting lines from drawing (while a form asks on the terminal)
 * until the returned function is called.
 */
export function holdProgress(): () => void {
  held++;
  let released = false;
  return () => {
    if (released) return;
    released = true;
    held--;
  };
}

const SPINNER = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];
const BAR_WIDTH = 20;
const TICK_MS = 100;

/** Elapsed time for people: `0.4s`, `12.0s`, `2m05s`. */
export function formatElapsed(ms: number): string {
  const seconds = Math.max(0, ms) / 1000;
  if (seconds < 60) return `${seconds.toFixed(1)}s`;
  const whole = Math.floor(seconds);
  return `${Math.floor(whole / 60)}m${String(whole % 60).padStart(2, "0")}s`;
}

/**
 * One progress line (no newline), at most `columns - 1` characters.
 *
 * @param label What runs (the tool's name).
 * @param progress The last progress, if any came.
 * @param elapsedMs Time since the call started.
 * @param frame The spinner's frame counter.
 * @param columns The terminal's width.
 * @param note Shown when the progress has no message (a task's status).
 * @returns The line.
 *
 * @example
 * ```ts
 * import { renderProgress } from "./_progress.ts";
 *
 * const line = renderProgress("slow", { progress: 1, total: 4 }, 2_000, 0, 80);
 * if (!line.includes("1/4") || !line.includes("25%") || !line.includes("2.0s")) throw new Error(line);
 * ```
 */
export function renderProgress(
  label: string,
  progress: Progress | undefined,
  elapsedMs: number,
  frame: number,
  columns: number,
  note?: string,
): string {
  const parts = [label];
  const total = progress?.total;
  if (progress !== undefined && typeof total === "number" && total > 0) {
    const ratio = Math.min(1, Math.max(0, progress.progress / total));
    const filled = Math.round(ratio * BAR_WIDTH);
    parts.push(`[${"█".repeat(filled)}${"░".repeat(BAR_WIDTH - filled)}]`);
    parts.push(`${progress.progress}/${total}`, `${Math.round(ratio * 100)}%`);
  } else {
    parts.unshift(SPINNER[frame % SPINNER.length]);
    if (progress !== undefined) parts.push(String(progress.progress));
  }
  parts.push(formatElapsed(elapsedMs));
  const message = typeof progress?.message === "string" && progress.message !== ""
    ? progress.message
    : note;
  if (message) parts.push(clean(message));
  const line = parts.join("  ");
  const max = Math.max(10, columns - 1);
  return line.length > max ? line.slice(0, max - 1) + "…" : line;
}

/** A live progress line. */
export interface ProgressLine {
  /** Takes a new progress (from `onProgress`). */
  update(progress: Progress): void;
  /** Shows `text` where the progress gives no message (a task's status). */
  note(text: string): void;
  /** Stops and erases the line. */
  stop(): void;
}

/**
 * Starts a progress line for `label` on `term` (nothing is drawn unless `term.tty`).
 *
 * @param term The terminal.
 * @param label What runs.
 * @param now The clock.
 * @returns The line.
 */
export function startProgress(
  term: Terminal,
  label: string,
  now: () => number = Date.now,
): ProgressLine {
  if (!term.tty) return { update() {}, note() {}, stop() {} };
  const started = now();
  let last: Progress | undefined;
  let noted: string | undefined;
  let frame = 0;
  let timer: Timer | undefined;
  let stopped = false;
  let drawn = false;
  const draw = () => {
    if (held > 0) return;
    drawn = true;
    term.err(
      `\r\x1b[2K${renderProgress(label, last, now() - started, frame, term.columns, noted)}`,
    );
  };
  const tick = () => {
    if (stopped) return;
    frame++;
    draw();
    timer = startTimer(tick, TICK_MS);
  };
  // The first frame after one tick: a call that answers at once leaves no trace.
  timer = startTimer(tick, TICK_MS);
  return {
    update(progress) {
      last = progress;
      if (!stopped) draw();
    },
    note(text) {
      noted = text;
      if (!stopped) draw();
    },
    stop() {
      if (stopped) return;
      stopped = true;
      timer?.clear();
      if (drawn) term.err("\r\x1b[2K");
    },
  };
}

/**
 * The line shown on a terminal while a server starts: `connecting to <label> (3 s)`, drawn
 * after the first second (a quick connect leaves no trace), redrawn each second, erased by
 * `stop`. Nothing is drawn unless `term.tty`.
 *
 * @param term The terminal.
 * @param label The server (its command, URL or config name; sanitised here).
 * @param now The clock.
 * @returns A function that stops and erases the line.
 */
export function startConnecting(
  term: Terminal,
  label: string,
  now: () => number = Date.now,
): () => void {
  if (!term.tty) return () => {};
  const started = now();
  let timer: Timer | undefined;
  let stopped = false;
  let drawn = false;
  const tick = () => {
    if (stopped) return;
    if (held > 0) return void (timer = startTimer(tick, 1_000));
    drawn = true;
    term.err(`\r\x1b[2K${renderConnecting(label, now() - started, term.columns)}`);
    timer = startTimer(tick, 1_000);
  };
  timer = startTimer(tick, 1_000);
  return () => {
    if (stopped) return;
    stopped = true;
    timer?.clear();
    if (drawn) term.err("\r\x1b[2K");
  };
}

/**
 * The connecting line (no newline), at most `columns - 1` characters: the label is cut,
 * the time kept.
 *
 * @example
 * ```ts
 * import { renderConnecting } from "./_progress.ts";
 *
 * if (renderConnecting("npx server", 3_400, 80) !== "connecting to npx server (3 s)") throw new Error();
 * ```
 */
export function renderConnecting(label: string, elapsedMs: number, columns: number): string {
  const time = ` (${Math.floor(Math.max(0, elapsedMs) / 1000)} s)`;
  const room = Math.max(10, columns - 1) - "connecting to ".length - time.length;
  const name = clean(label);
  const cut = name.length > room ? name.slice(0, Math.max(1, room - 1)) + "…" : name;
  return `connecting to ${cut}${time}`;
}

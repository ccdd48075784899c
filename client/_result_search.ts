/**
 * Private: finding in a spilled result — the lines holding a text (`grep`, with context) and
 * the part of its JSON at a path (`jsonPath`). Pure; loaded with the reader of spilled
 * results.
 *
 * @module
 */

import { McpError } from "../protocol/errors.ts";
import type { JsonObject } from "../protocol/jsonrpc.ts";

/** The lines of context around each `grep` match. */
const GREP_CONTEXT = 2;

/**
 * The lines of `text` holding `needle` (any case), numbered, each with two lines around it,
 * runs apart split by `--`.
 *
 * @param text The text.
 * @param needle What to find.
 * @returns The lines.
 */
export function grepLines(text: string, needle: string): string {
  const lines = text.split("\n");
  const wanted = needle.toLowerCase();
  const keep = new Set<number>();
  lines.forEach((line, i) => {
    if (!line.toLowerCase().includes(wanted)) return;
    for (let j = Math.max(0, i - GREP_CONTEXT); j <= i + GREP_CONTEXT && j < lines.length; j++) {
      keep.add(j);
    }
  });
  const out: string[] = [];
  let previous = -2;
  for (const i of [...keep].sort((a, b) => a - b)) {
    if (previous >= 0 && i !== previous + 1) out.push("--");
    out.push(`${i + 1}: ${lines[i]}`);
    previous = i;
  }
  return out.join("\n");
}

const STEP =
  /^(?:\.([A-Za-z_$][\w$]*)|\[\s*(-?\d+)\s*\]|\[\s*(-?\d*)\s*:\s*(-?\d*)\s*\]|\[\s*("(?:[^"\\]|\\.)*")\s*\]|\[\s*'((?:[^'\\]|\\.)*)'\s*\])/;

/**
 * The subtree of `value` at a JSON path: `$` then `.key`, `["key"]`, `['key']`, `[3]` or
 * `[from:to]` steps.
 *
 * @param value The JSON value.
 * @param path The path.
 * @returns The subtree.
 * @throws {McpError} kind `validation` (a path it cannot read) or `not_found` (nothing there).
 */
export function atPath(value: unknown, path: string): unknown {
  const bad = (why: string) =>
    new McpError(`jsonPath ${JSON.stringify(path.slice(0, 80))}: ${why}`, {
      kind: "validation",
      reason: "invalid_arguments",
    });
  let rest = path.trim();
  if (!rest.startsWith("$")) throw bad("must start with $");
  rest = rest.slice(1);
  let at: unknown = value;
  while (rest !== "") {
    const m = STEP.exec(rest);
    if (m === null) throw bad(`cannot read ${JSON.stringify(rest.slice(0, 40))}`);
    rest = rest.slice(m[0].length);
    const key = m[1] ?? (m[5] !== undefined ? JSON.parse(m[5]) : m[6]);
    if (key !== undefined) {
      if (typeof at !== "object" || at === null || Array.isArray(at) || !Object.hasOwn(at, key)) {
        throw missing(path);
      }
      at = (at as JsonObject)[key];
    } else if (m[2] !== undefined) {
      if (!Array.isArray(at)) throw missing(path);
      const index = Number(m[2]) < 0 ? at.length + Number(m[2]) : Number(m[2]);
      if (index < 0 || index >= at.length) throw missing(path);
      at = at[index];
    } else {
      if (!Array.isArray(at)) throw missing(path);
      const from = m[3] === "" ? undefined : Number(m[3]);
      const to = m[4] === "" ? undefined : Number(m[4]);
      at = at.slice(from, to);
    }
  }
  return at;
}

function missing(path: string): McpError {
  return new McpError(`jsonPath ${JSON.stringify(path.slice(0, 80))}: nothing there`, {
    kind: "not_found",
    reason: "no_such_path",
  });
}

/**
 * The JSON text of a value in pieces ({@linkcode jsonChunks}), for a value `JSON.stringify`
 * cannot write at once (nested too deep for its stack, too long for one string) or that a
 * caller gives up on past a few characters. Pure. Apart from `json_length.ts`, which every
 * client loads, so that only the code that writes JSON in pieces loads this.
 *
 * @module
 */

/** The characters a piece of {@linkcode jsonChunks} holds at least (the last may hold fewer). */
export const JSON_CHUNK = 16 * 1024;

/** A container being written: an array's items or an object's keys, and where it is. */
interface Frame {
  /** The array, or the object. */
  holder: Record<string, unknown> | unknown[];
  /** The object's keys (`undefined`: an array). */
  keys?: string[];
  /** The next index (of the items, or of the keys). */
  at: number;
  /** How many members were written. */
  written: number;
  /** How many items of a wide array the engine writes at once (adjusted to `size`). */
  batch?: number;
}

/** A container with this many members or more is wide: each member written at once. */
const WIDE = 32;

/** A value `JSON.stringify` leaves out of an object and writes as `null` in an array. */
const SKIPPED = Symbol("skipped");
/** A string too long for one piece, written in parts. */
const LONG = Symbol("long");

/**
 * The JSON text of `value`, in pieces: exactly `JSON.stringify(value)`'s text, written by a
 * walk that keeps its own stack (so deep nesting cannot overflow the call stack) and hands
 * the text out a piece at a time, each about `size` characters (a piece is cut between
 * members, or inside a long string between whole characters), so a big value never becomes
 * one string. (A member of a container of 32 or more members, most often a row, is written
 * by `JSON.stringify` at once, without a walk: one string per row, not one per value; a run of
 * rows that fills a piece is handed out as one slice of the text the engine wrote, neither
 * joined to its neighbours nor copied.) `toJSON` is called as `JSON.stringify` calls it; a cycle or a `BigInt` throws
 * the `TypeError` `JSON.stringify` would. A value without JSON text (`undefined`, a
 * function) gives no piece.
 *
 * @param value Any value.
 * @param size The least characters of a piece but the last (default {@linkcode JSON_CHUNK}).
 * @returns The pieces, in order.
 * @throws {TypeError} For a cycle or a `BigInt`.
 *
 * @example
 * ```ts
 * import { jsonChunks } from "./json_chunks.ts";
 *
 * const value = { rows: Array.from({ length: 1000 }, (_, i) => ({ i, s: "é\u2028" })) };
 * const pieces = [...jsonChunks(value, 100)];
 * if (pieces.join("") !== JSON.stringify(value) || pieces.length < 10) throw new Error();
 * ```
 */
export function* jsonChunks(value: unknown, size: number = JSON_CHUNK): Generator<string> {
  const stack: Frame[] = [];
  const open = new Set<object>();
  let out = "";
  let long = "";
  // Writes a value: a scalar's text, or a container's opening (its frame pushed). A member
  // of a wide container (rows, most often) is written by the engine at once: it is small
  // beside its container, and one string per member is far less for the collector.
  const write = (
    key: string,
    raw: unknown,
    wide = false,
  ): string | typeof SKIPPED | typeof LONG => {
    const v = prepare(key, raw);
    if (v === null) return "null";
    switch (typeof v) {
      case "boolean":
        return v ? "true" : "false";
      case "number":
        return Number.isFinite(v) ? String(v) : "null";
      case "string":
        if (v.length <= size) return JSON.stringify(v);
        long = v;
        return LONG;
      case "bigint":
        throw new TypeError("Do not know how to serialize a BigInt");
      case "object": {
        if (open.has(v)) throw new TypeError("Converting circular structure to JSON");
        if (wide && typeof (v as { toJSON?: unknown }).toJSON !== "function") {
          try {
            return JSON.stringify(v);
          } catch (error) {
            if (!(error instanceof RangeError)) throw error; // too deep: walked below
          }
        }
        open.add(v);
        const array = Array.isArray(v);
        stack.push({
          holder: v as Record<string, unknown>,
          keys: array ? undefined : Object.keys(v),
          at: 0,
          written: 0,
        });
        return array ? "[" : "{";
      }
      default:
        return SKIPPED;
    }
  };
  const first = write("", value);
  if (first === SKIPPED) return;
  if (first !== LONG) out = first;
  for (;;) {
    if (long !== "") {
      // A long string: its quoted text a piece at a time, never between a surrogate pair.
      out += '"';
      for (let at = 0; at < long.length;) {
        let end = Math.min(long.length, at + size);
        const last = long.charCodeAt(end - 1);
        if (end < long.length && last >= 0xd800 && last <= 0xdbff) {
          end = end - 1 > at ? end - 1 : end + 1;
        }
        out += JSON.stringify(long.slice(at, end)).slice(1, -1);
        at = end;
        if (out.length >= size) {
          yield out;
          out = "";
        }
      }
      out += '"';
      long = "";
    }
    if (out.length >= size) {
      yield out;
      out = "";
    }
    const top = stack[stack.length - 1];
    if (top === undefined) break;
    const { holder, keys } = top;
    if (keys === undefined) {
      const items = holder as unknown[];
      if (items.length >= WIDE && top.at < items.length) {
        const text = batch(items, top, open, size);
        if (text !== undefined) {
          // A run long enough is a piece as the engine wrote it (no join, no copy).
          if (out === "" && text.length >= size) yield text;
          else out += text;
          continue;
        }
      }
      if (top.at < items.length) {
        const index = top.at++;
        if (index > 0) out += ",";
        const piece = write(String(index), items[index], items.length >= WIDE);
        if (piece === SKIPPED) out += "null";
        else if (piece !== LONG) out += piece;
        continue;
      }
    } else {
      const object = holder as Record<string, unknown>;
      let written = false;
      while (top.at < keys.length) {
        const key = keys[top.at++];
        const piece = write(key, object[key], keys.length >= WIDE);
        if (piece === SKIPPED) continue;
        // The member's name goes before what `write` opened (its frame already pushed).
        out += (top.written++ > 0 ? "," : "") + JSON.stringify(key) + ":";
        if (piece !== LONG) out += piece;
        written = true;
        break;
      }
      if (written) continue;
    }
    out += keys === undefined ? "]" : "}";
    stack.pop();
    open.delete(holder);
  }
  if (out !== "") yield out;
}

/**
 * The next items of a wide array written by the engine at once (a run of them, about `size`
 * characters), with the comma before them; `undefined` when the walk must write them (an
 * item with its own `toJSON`, which would be called with another index, or too deep).
 */
function batch(
  items: unknown[],
  top: Frame,
  open: Set<object>,
  size: number,
): string | undefined {
  const count = top.batch ?? 16;
  const end = Math.min(items.length, top.at + count);
  const run = items.slice(top.at, end);
  for (const item of run) {
    if (typeof item === "bigint") return undefined;
    if (typeof item === "object" && item !== null) {
      if (open.has(item)) throw new TypeError("Converting circular structure to JSON");
      if (typeof (item as { toJSON?: unknown }).toJSON === "function") return undefined;
    }
  }
  // After the first run, a leading 0 makes the engine write the comma too: the run's text
  // is then one slice of what the engine wrote, not a join.
  const comma = top.at > 0;
  if (comma) run.unshift(0);
  let text: string;
  try {
    text = JSON.stringify(run);
  } catch (error) {
    if (error instanceof RangeError) return undefined; // too deep for the engine: walked
    throw error;
  }
  top.at = end;
  top.written += run.length - (comma ? 1 : 0);
  const aim = size * 1.5;
  top.batch = Math.max(1, Math.min(4096, Math.round(count * aim / Math.max(1, text.length))));
  return text.slice(comma ? 2 : 1, -1);
}

/** What `JSON.stringify` writes for `holder[key]`: after `toJSON`, boxed primitives unboxed. */
function prepare(key: string, value: unknown): unknown {
  if ((typeof value === "object" && value !== null) || typeof value === "bigint") {
    const toJSON = (value as { toJSON?: unknown }).toJSON;
    if (typeof toJSON === "function") value = toJSON.call(value, key);
  }
  if (typeof value === "object" && value !== null) {
    if (value instanceof Number) return Number(value);
    if (value instanceof String) return String(value);
    if (value instanceof Boolean) return value.valueOf();
  }
  return value;
}

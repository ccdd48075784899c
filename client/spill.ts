/**
 * Spilling (loaded only when a client or hub spills): a shaped result over budget is kept
 * whole behind a handle bound to the caller's identity, the model's text keeps its head and
 * tail around one line naming the rest and how to read it (`governance/fit.ts`), and
 * `readResult` pages, greps or walks the JSON of what was kept. The `read_result` meta-tool
 * answers a model's reads with the same arguments.
 *
 * @module
 */

import { McpError } from "../protocol/errors.ts";
import type { JsonObject } from "../protocol/jsonrpc.ts";
import { type CacheTarget, canonicalJson, digest } from "../cache/digest.ts";
import { memoryStore } from "../cache/memory.ts";
import { createSpillStore, isHandle, newHandle, type SpillStore } from "../cache/spill_store.ts";
import type { CacheStore } from "../cache/store.ts";
import { approxTokens, fitSpilled, project } from "../governance/fit.ts";
import { DEFAULT_MAX_CHARS, type ShapedResult, type SpillConfig } from "../governance/shape.ts";
import type { ReadResultOptions } from "./request_options.ts";
import type { ReadResultPage, Tool, ToolResult } from "./shapes.ts";

/** The name of the meta-tool that reads a spilled result. */
export const READ_RESULT = "read_result";

/** The most characters one read returns. */
export const MAX_READ_LENGTH = 1_000_000;

/** The lines of context around each `grep` match. */
const GREP_CONTEXT = 2;

/** The `read_result` meta-tool, listed where spilling is on. */
export const READ_RESULT_TOOL: Tool = Object.freeze({
  name: READ_RESULT,
  description: "Read more of a tool result that was too long to show whole: the text " +
    "named a handle and where the rest starts. Page with offset and length, find lines " +
    "with grep, or take a part of its JSON with jsonPath (e.g. $.rows[0:20]).",
  inputSchema: {
    type: "object",
    properties: {
      handle: { type: "string", description: "The handle the result named (rs_…)" },
      offset: { type: "integer", minimum: 0, description: "Where to start (default 0)" },
      length: {
        type: "integer",
        minimum: 1,
        maximum: MAX_READ_LENGTH,
        description: "How many characters at most (default 8000)",
      },
      grep: { type: "string", description: "Only the lines holding this text (any case)" },
      jsonPath: {
        type: "string",
        description: 'A part of the JSON: $, .key, ["key"], [3], [0:20]',
      },
    },
    required: ["handle"],
    additionalProperties: false,
  },
  annotations: { readOnlyHint: true, openWorldHint: false },
}) as Tool;

const stores = new WeakMap<CacheStore, SpillStore>();

/**
 * The owner of results spilled for a target and principal: a digest of the server, the
 * credentials' identity (as the cache names it) and the principal.
 *
 * @param target The server and the credentials' identity.
 * @param unnamed The name of an identity the target cannot name (the caller's own).
 * @param principal The principal.
 * @returns A digest.
 */
export function spillOwner(
  target: CacheTarget,
  unnamed: string,
  principal: string | undefined,
): Promise<string> {
  return digest(
    canonicalJson(["spill", target.server, target.identity ?? unnamed, principal ?? null]),
  );
}

/**
 * The result store of a spill setting (one per store, for the process).
 *
 * @param config The store and its limits.
 * @returns The result store.
 */
export function spillStoreOf(config: SpillConfig): SpillStore {
  let found = stores.get(config.store);
  if (found === undefined || found.maxChars !== config.maxBytes) {
    found = createSpillStore(config.store, { ttlMs: config.ttlMs, maxBytes: config.maxBytes });
    stores.set(config.store, found);
  }
  return found;
}

/**
 * The memory store of `spill: true`: no entry count bound, 128 MiB.
 *
 * @returns The store.
 */
export function ownMemoryStore(): CacheStore {
  return memoryStore({ maxEntries: Infinity, maxBytes: 128 * 1024 * 1024 });
}

/**
 * Shapes a result, spilling it when it is over budget.
 *
 * @param result The tool result.
 * @param maxChars The budget.
 * @param store Where it is kept.
 * @param owner The owner (a digest of the caller's identity).
 * @param ttlMs How long it is kept.
 * @returns The shaped result, with `spilled` when kept.
 */
export async function spillResult(
  result: ToolResult,
  maxChars: number,
  store: SpillStore,
  owner: string,
  ttlMs: number,
): Promise<ShapedResult> {
  if (typeof result !== "object" || result === null || !Array.isArray(result.content)) {
    throw new TypeError("result must be a tool result (with a content array)");
  }
  const { segments, isError, json, jsonText: structuredText } = project(result);
  let total = 0;
  for (const s of segments) total += s.text.length;
  total += Math.max(0, segments.length - 1);
  if (total <= maxChars) {
    const text = segments.map((s) => s.text).join("\n");
    return { text, isError, approxTokens: approxTokens(text), cutChars: 0 };
  }
  const handle = newHandle();
  const whole = segments.length === 1 ? segments[0].text : segments.map((s) => s.text).join("\n");
  const jsonText = structuredText ?? (json === undefined ? undefined : safeJson(json));
  const expiresAt = Date.now() + ttlMs;
  const kept = await store.put(owner, handle, whole, jsonText, ttlMs);
  const notice = kept
    ? (head: number, tail: number) =>
      `[… ${tail - head} more characters (offset ${head} to ${tail} of ${total}) kept as ` +
      `${handle}: read them with read_result {"handle":"${handle}","offset":${head}}, or ` +
      `grep or jsonPath …]`
    : (head: number, tail: number) =>
      `[… ${
        tail - head
      } characters (offset ${head} to ${tail} of ${total}) cut: too big to keep …]`;
  const fitted = fitSpilled(segments, maxChars, notice);
  const shaped: ShapedResult = {
    text: fitted.text,
    isError,
    approxTokens: approxTokens(fitted.text),
    cutChars: fitted.tailStart - fitted.headEnd,
  };
  if (!kept) return shaped;
  const spilled = {
    handle,
    chars: total,
    restOffset: fitted.headEnd,
    restChars: fitted.tailStart - fitted.headEnd,
    expiresAt,
  };
  return { ...shaped, spilled, _meta: { "conduit/spill": { ...spilled } } };
}

function safeJson(value: unknown): string | undefined {
  try {
    return JSON.stringify(value);
  } catch {
    return undefined;
  }
}

/**
 * Checks `readResult`'s options.
 *
 * @param options The options.
 * @returns Them, checked.
 * @throws {TypeError} Naming the bad one.
 */
export function checkReadOptions(options: unknown): ReadResultOptions {
  if (options === undefined) return {};
  if (typeof options !== "object" || options === null || Array.isArray(options)) {
    throw new TypeError("readResult options must be an object");
  }
  const o = options as Record<string, unknown>;
  for (const key of Object.keys(o)) {
    if (!["offset", "length", "grep", "jsonPath", "principal"].includes(key)) {
      throw new TypeError(`readResult: unknown option "${key}"`);
    }
  }
  if (o.offset !== undefined && !(Number.isSafeInteger(o.offset) && (o.offset as number) >= 0)) {
    throw new TypeError('readResult: option "offset" must be a whole number, at least 0');
  }
  if (
    o.length !== undefined &&
    !(Number.isSafeInteger(o.length) && (o.length as number) >= 1 &&
      (o.length as number) <= MAX_READ_LENGTH)
  ) {
    throw new TypeError(
      `readResult: option "length" must be a whole number, 1 to ${MAX_READ_LENGTH}`,
    );
  }
  for (const key of ["grep", "jsonPath", "principal"]) {
    if (o[key] !== undefined && typeof o[key] !== "string") {
      throw new TypeError(`readResult: option "${key}" must be a string`);
    }
  }
  if (o.grep === "") throw new TypeError('readResult: option "grep" must not be empty');
  if (o.grep !== undefined && o.jsonPath !== undefined) {
    throw new TypeError('readResult: give "grep" or "jsonPath", not both');
  }
  return o as ReadResultOptions;
}

/**
 * Reads a spilled result.
 *
 * @param candidates The stores it may be in, each with the owner to read as.
 * @param handle The handle.
 * @param options The page, grep or JSON path.
 * @returns The page.
 * @throws {McpError} kind `not_found` (`unknown_result`, `result_expired`).
 */
export async function readSpilled(
  candidates: readonly { store: SpillStore; owner: string }[],
  handle: unknown,
  options: ReadResultOptions,
): Promise<ReadResultPage> {
  if (!isHandle(handle)) {
    throw new McpError("No result is kept under this handle for this caller", {
      kind: "not_found",
      reason: "unknown_result",
    });
  }
  let lastError: unknown;
  for (const { store, owner } of candidates) {
    let meta;
    try {
      meta = await store.meta(owner, handle);
    } catch (error) {
      if (lastError === undefined || (error as McpError).reason === "result_expired") {
        lastError = error;
      }
      continue;
    }
    const offset = options.offset ?? 0;
    const length = options.length ?? DEFAULT_MAX_CHARS;
    if (options.grep === undefined && options.jsonPath === undefined) {
      return await page(
        meta.total,
        offset,
        length,
        (from, to) => store.slice(owner, handle, "t", from, to),
      );
    }
    let derived: string;
    if (options.grep !== undefined) {
      derived = grepLines(await store.slice(owner, handle, "t", 0, meta.total), options.grep);
    } else {
      if (meta.jsonTotal === 0) {
        throw new McpError("The result kept under this handle has no JSON to take a path of", {
          kind: "validation",
          reason: "invalid_arguments",
        });
      }
      const value = JSON.parse(await store.slice(owner, handle, "j", 0, meta.jsonTotal));
      derived = JSON.stringify(atPath(value, options.jsonPath!)) ?? "null";
    }
    return await page(
      derived.length,
      offset,
      length,
      (from, to) => Promise.resolve(derived.slice(from, to)),
    );
  }
  throw lastError;
}

async function page(
  total: number,
  offset: number,
  length: number,
  read: (from: number, to: number) => Promise<string>,
): Promise<ReadResultPage> {
  const from = Math.min(offset, total);
  let to = Math.min(total, from + length);
  let text = await read(from, to);
  // A page never ends between the halves of a surrogate pair (unless it is one character).
  const last = text.charCodeAt(text.length - 1);
  if (to < total && text.length > 1 && last >= 0xd800 && last <= 0xdbff) {
    text = text.slice(0, -1);
    to--;
  }
  return { text, offset: from, total, nextOffset: to < total ? to : null };
}

function grepLines(text: string, needle: string): string {
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

/**
 * The text a model gets for a `read_result` call: the page, and where the next starts.
 *
 * @param page The page.
 * @returns The tool result.
 */
export function readResultAnswer(page: ReadResultPage): ToolResult {
  const end = page.offset + page.text.length;
  const where = page.nextOffset === null
    ? `[characters ${page.offset} to ${end} of ${page.total}: the end]`
    : `[characters ${page.offset} to ${end} of ${page.total}: next offset ${page.nextOffset}]`;
  return { content: [{ type: "text", text: `${page.text}\n${where}` }], isError: false };
}

/**
 * Runs a model's `read_result` call.
 *
 * @param args The model's arguments.
 * @param principal The caller's principal.
 * @param read The reader.
 * @returns The result for the model (a failure the model can act on as `isError`).
 */
export async function readResultCall(
  args: unknown,
  principal: string | undefined,
  read: (handle: string, options: ReadResultOptions) => Promise<ReadResultPage>,
): Promise<ToolResult> {
  try {
    if (typeof args !== "object" || args === null || Array.isArray(args)) {
      throw new TypeError("the arguments must be an object");
    }
    const { handle, ...rest } = args as Record<string, unknown>;
    if (typeof handle !== "string") throw new TypeError('"handle" must be a string');
    if ("principal" in rest) throw new TypeError('"principal" is not an argument');
    const options = checkReadOptions(rest);
    const page = await read(handle, { ...options, principal });
    return readResultAnswer(page);
  } catch (error) {
    if (error instanceof TypeError) {
      const why = error.message.replace(/^readResult: /, "");
      return {
        content: [{ type: "text", text: `Invalid arguments for ${READ_RESULT}: ${why}` }],
        isError: true,
      };
    }
    if (error instanceof McpError) {
      const message = error.message;
      return { content: [{ type: "text", text: message }], isError: true };
    }
    throw error;
  }
}

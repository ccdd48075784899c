/**
 * Reading a spilled result back (loaded only by `readResult` and the `read_result`
 * meta-tool): pages of the uncut text, of a media block's base64 data, of the lines a
 * `grep` finds or of the JSON at a `jsonPath`, and the meta-tool's definition and answers.
 * Writing a result is `spill.ts`'s.
 *
 * @module
 */

import { McpError } from "../protocol/errors.ts";
import type { SpillStore } from "../cache/spill_store.ts";
import { isHandle } from "../cache/spill_store.ts";
import { DEFAULT_MAX_CHARS, READ_RESULT } from "../governance/shape_names.ts";
import { jsonChunks } from "../protocol/json_chunks.ts";
import type { SpillConfig } from "../governance/shape.ts";
import { atPath, grepLines } from "./_result_search.ts";
import type { ReadResultOptions } from "./request_options.ts";
import type { ReadResultPage, Tool, ToolResult } from "./shapes.ts";
import { spillStoreOf } from "./spill.ts";

export { READ_RESULT } from "../governance/shape_names.ts";
export { spillStoreOf } from "./spill.ts";

/** The most characters one read returns. */
export const MAX_READ_LENGTH = 1_000_000;

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
      media: {
        type: "integer",
        minimum: 0,
        description: "The base64 data of the media block the text numbered so (paged too)",
      },
    },
    required: ["handle"],
    additionalProperties: false,
  },
  annotations: { readOnlyHint: true, openWorldHint: false },
}) as Tool;

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
    if (!["offset", "length", "grep", "jsonPath", "media", "principal"].includes(key)) {
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
  if (o.media !== undefined && !(Number.isSafeInteger(o.media) && (o.media as number) >= 0)) {
    throw new TypeError('readResult: option "media" must be a whole number, at least 0');
  }
  if ([o.grep, o.jsonPath, o.media].filter((v) => v !== undefined).length > 1) {
    throw new TypeError('readResult: give one of "grep", "jsonPath" and "media"');
  }
  return o as ReadResultOptions;
}

/**
 * A client's `readResult`: checks the handle and options, and reads the result from the
 * stores a shaped call of this client may have spilled it to, as `owner` names the caller.
 *
 * @param handle The handle.
 * @param options The page, grep or JSON path, and the principal.
 * @param configs The spill settings the client's calls used (its default first).
 * @param owner The owner a principal reads as.
 * @returns The page.
 * @throws {TypeError} For a bad handle or option.
 * @throws {McpError} kind `not_found` (`unknown_result`, `result_expired`).
 */
export async function readKept(
  handle: unknown,
  options: unknown,
  configs: readonly SpillConfig[],
  owner: (principal: string | undefined) => Promise<string>,
): Promise<ReadResultPage> {
  const checked = checkReadOptions(options);
  if (typeof handle !== "string") throw new TypeError("readResult: handle must be a string");
  if (configs.length === 0) throw unknownResult();
  const me = await owner(checked.principal);
  return await readSpilled(
    configs.map((config) => ({ store: spillStoreOf(config), owner: me })),
    handle,
    checked,
  );
}

function unknownResult(): McpError {
  return new McpError("No result is kept under this handle for this caller", {
    kind: "not_found",
    reason: "unknown_result",
  });
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
  if (!isHandle(handle)) throw unknownResult();
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
    if (options.media !== undefined) {
      const n = options.media;
      const size = meta.media?.[n];
      if (size === undefined) {
        throw new McpError(`The result kept under this handle has no media block ${n}`, {
          kind: "not_found",
          reason: "no_such_path",
        });
      }
      return await page(
        size,
        offset,
        length,
        (from, to) => store.slice(owner, handle, `m${n}`, from, to),
      );
    }
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
      derived = jsonText(atPath(value, options.jsonPath!));
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

/** The JSON text of a value (walked in pieces when too deep for `JSON.stringify`). */
function jsonText(value: unknown): string {
  try {
    return JSON.stringify(value) ?? "null";
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
    return [...jsonChunks(value)].join("");
  }
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

/**
 * Shaping a tool result for a model (`shape: "llm"`): one text, within a budget, with what
 * the server wrote run through the shared sanitiser (`sanitizeText`). Pure.
 *
 * The projection (the uncut text), in content order:
 * - `text` blocks: their text, one block per line group (joined with `\n`);
 * - `structuredContent`: compact JSON, **instead of** a `text` block that repeats it (a text
 *   whose trimmed content parses as JSON deep-equal to it is dropped, the JSON taking its
 *   place; with no such block the JSON comes last). Other text blocks stay: they say more;
 * - `image` and `audio`: `[image: image/png, 1.2 KiB]`, from the MIME type and the decoded
 *   size of the base64 data;
 * - `resource_link`: `[resource link: "name" <uri>, mime, size]`;
 * - embedded `resource`: `[resource: <uri>, mime, 1.2 KiB text]` (or `… blob`), not its
 *   contents;
 * - any other block: `[<type> content]`.
 * A failed call (`isError: true`) starts with the line `The tool reported an error.`; an
 * empty result reads `(no content)`.
 *
 * Past `maxChars` nothing is cut blind: the head and the tail are kept around one line
 * naming what was left out (its size and where it was), text is cut only at line ends (or
 * at a space inside a line too long alone, never inside a run without spaces), JSON is
 * kept whole or summarised by its structure, a reference line is kept whole or left out.
 * Spilling (`spill`, on a client's or hub's `callTool`) keeps what was left out behind a
 * handle; plain shaping keeps no copy, and the line says so.
 *
 * @module
 */

import { sanitizeText } from "../protocol/text.ts";
import { jsonSegment, parseJson, sameJson, sameText } from "./_json.ts";
import type { ContentBlock, ToolResult } from "../protocol/shapes.ts";
import { approxTokens, fitSegments, segmentText, totalLength } from "./_budget.ts";
import { checkMaxChars } from "./shape_names.ts";
import { reference } from "./_reference.ts";
import type { Segment } from "./_shape_types.ts";
import type { ShapedResult, ShapeOptions } from "./_shape_types.ts";

export { checkMaxChars, DEFAULT_MAX_CHARS, MIN_MAX_CHARS } from "./shape_names.ts";
export { approxTokens, fitSegments, segmentText, totalLength } from "./_budget.ts";
export { sameJson } from "./_json.ts";
export type {
  Segment,
  ShapeDefaults,
  ShapedResult,
  ShapeOptions,
  SpillConfig,
  SpillInfo,
  SpillOptions,
  SpillSetting,
} from "./_shape_types.ts";

/** The first line of a shaped failed call. */
export const ERROR_LINE = "The tool reported an error.";

/**
 * Shapes a tool result for a model: text joined, `structuredContent` as compact JSON instead
 * of a text block repeating it, media and resources as short references, `isError` kept
 * visible, and the whole fitted into `maxChars` without a cut value (see the module's
 * description for the exact projection and the cuts).
 *
 * @param result The result, as `callTool` returns it.
 * @param options `maxChars`.
 * @returns The text, `isError`, an approximate token count and how much was left out.
 * @throws {TypeError} For a result without a `content` array, or a bad `maxChars`.
 *
 * @example Text and structured content: the JSON once, not twice
 * ```ts
 * import { shapeResult } from "./shape.ts";
 *
 * const shaped = shapeResult({
 *   content: [{ type: "text", text: '{ "temperature": 33 }' }, { type: "image", mimeType: "image/png", data: "iVBORw0KGgo=" }],
 *   structuredContent: { temperature: 33 },
 *   isError: false,
 * });
 * if (shaped.text !== '{"temperature":33}\n[image: image/png, 8 bytes]') throw new Error(shaped.text);
 * if (shaped.cutChars !== 0 || shaped.approxTokens < 1) throw new Error("unexpected");
 * ```
 *
 * @example JSON over budget is summarised, never cut inside a value
 * ```ts
 * import { shapeResult } from "./shape.ts";
 *
 * const rows = Array.from({ length: 500 }, (_, id) => ({ id, name: `row ${id}` }));
 * const result = { content: [], structuredContent: { rows }, isError: false };
 * const shaped = shapeResult(result, { maxChars: 400 });
 * if (shaped.text.length > 400 || !shaped.text.startsWith("[JSON object")) throw new Error();
 * if (!shaped.text.includes("cut: not kept")) throw new Error(shaped.text);
 * ```
 */
export function shapeResult(result: ToolResult, options: ShapeOptions = {}): ShapedResult {
  checkResult(result);
  return shapeProjected(project(result), checkMaxChars(options?.maxChars));
}

/**
 * Shapes a projection within `maxChars`, keeping no copy of what is left out.
 *
 * @param projection The projection ({@linkcode project}).
 * @param maxChars The budget.
 * @param why Why what is left out is not kept, for the line naming it.
 * @returns The shaped result.
 */
export function shapeProjected(
  projection: Projection,
  maxChars: number,
  why = "not kept",
): ShapedResult {
  const { segments, isError } = projection;
  const total = totalLength(segments);
  if (total <= maxChars) {
    const text = segments.map(segmentText).join("\n");
    return { text, isError, approxTokens: approxTokens(text), cutChars: 0 };
  }
  const notice = (head: number, tail: number) => droppedLine(head, tail, total, why);
  const fitted = fitSegments(segments, maxChars, notice);
  return {
    text: fitted.text,
    isError,
    approxTokens: approxTokens(fitted.text),
    cutChars: fitted.tailStart - fitted.headEnd,
  };
}

/**
 * The line naming what shaping left out and did not keep.
 *
 * @param head Where the part left out starts in the uncut text.
 * @param tail Where it ends.
 * @param total The uncut text's length.
 * @param why Why it was not kept.
 * @returns The line.
 */
export function droppedLine(head: number, tail: number, total: number, why = "not kept"): string {
  return `[… ${tail - head} characters (offset ${head} to ${tail} of ${total}) cut: ${why} …]`;
}

/**
 * Checks that a value is a tool result.
 *
 * @param result The value.
 * @throws {TypeError} Unless an object with a `content` array.
 */
export function checkResult(result: unknown): asserts result is ToolResult {
  if (
    typeof result !== "object" || result === null || !Array.isArray((result as ToolResult).content)
  ) {
    throw new TypeError("result must be a tool result (with a content array)");
  }
}

/** The uncut projection of a result. */
export interface Projection {
  /** The pieces, in order (joined with `\n`). */
  segments: Segment[];
  /** Whether the tool reported a failure. */
  isError: boolean;
  /** The JSON value `jsonPath` reads: the structured content, else the first JSON text. */
  json: unknown;
  /**
   * The segment whose text is the JSON text of `json` (its index in `segments`): the
   * structured content's when sanitising left it as it was, else the first JSON text's.
   */
  jsonSegment?: number;
  /**
   * The structured content's JSON text, when no segment holds it as it is (sanitising
   * changed it): its length, and its text in pieces.
   */
  jsonApart?: { length: number; pieces: () => Iterable<string> };
  /** The base64 data of each media block (image, audio, blob), in order. */
  media: string[];
}

/** Options of {@linkcode project}. */
export interface ProjectOptions {
  /** How a media block's line says to read its data (`i`: its index), if it can be read. */
  mediaHint?: (index: number) => string;
}

const BASE64 = /^[A-Za-z0-9+/\s]*={0,2}\s*$/;

/**
 * The uncut projection of a result, as {@linkcode shapeResult} joins it (its text is the
 * segments' texts joined with `\n`). The structured content's JSON text is written once,
 * by the engine, and kept as its segment's text (see `jsonSegment`).
 *
 * @param result The tool result.
 * @param options How media lines say to read their data.
 * @returns The segments, whether it failed, the JSON value and the media data.
 */
export function project(result: ToolResult, options: ProjectOptions = {}): Projection {
  const structured = result.structuredContent;
  const json = structured === undefined ? undefined : jsonSegment(structured);
  const segments: Segment[] = [];
  const media: string[] = [];
  const isError = result.isError === true;
  if (isError) segments.push({ kind: "text", length: ERROR_LINE.length, text: ERROR_LINE });
  let placed = -1;
  let firstJson: unknown;
  let firstAt = -1;
  for (const block of result.content) {
    if (typeof block !== "object" || block === null) continue;
    if (block.type === "text") {
      const text = typeof block.text === "string" ? block.text : "";
      // The same text as the structured content's JSON needs no parse to be known.
      const same = json?.raw !== undefined && text.length === json.raw &&
        sameText(text, json.rawPieces!());
      const parsed = same ? { ok: true as const, value: structured } : parseJson(text);
      if (json !== undefined && parsed.ok && (same || sameJson(parsed.value, structured))) {
        if (placed < 0) placed = segments.push(json.segment) - 1;
        continue;
      }
      const visible = sanitizeLarge(text);
      if (visible === "") continue;
      const again = visible === text ? parsed : parseJson(visible);
      if (again.ok) {
        segments.push({ kind: "json", length: visible.length, text: visible, value: again.value });
        if (firstAt < 0) [firstJson, firstAt] = [again.value, segments.length - 1];
      } else segments.push({ kind: "text", length: visible.length, text: visible });
    } else {
      const data = mediaData(block);
      const index = data === undefined ? -1 : media.push(data) - 1;
      const hint = index < 0 || options.mediaHint === undefined ? "" : options.mediaHint(index);
      const line = reference(block, hint);
      segments.push({ kind: "ref", length: line.length, text: line });
    }
  }
  if (json !== undefined && placed < 0) placed = segments.push(json.segment) - 1;
  const body = segments.slice(isError ? 1 : 0);
  if (body.every((s) => s.kind === "text" && s.text!.trim() === "")) {
    const none = "(no content)";
    segments.splice(isError ? 1 : 0, Infinity, { kind: "text", length: none.length, text: none });
    placed = -1;
  }
  const at = structured === undefined ? firstAt : json?.clean === true ? placed : -1;
  return {
    segments,
    isError,
    json: structured !== undefined ? structured : firstJson,
    ...(at >= 0 ? { jsonSegment: at } : {}),
    ...(structured !== undefined && at < 0 && json?.raw !== undefined && json.rawPieces
      ? { jsonApart: { length: json.raw, pieces: json.rawPieces } }
      : {}),
    media,
  };
}

/** The base64 data of a media block (image, audio, an embedded blob), if it is base64. */
function mediaData(block: ContentBlock): string | undefined {
  let data: unknown;
  if (block.type === "image" || block.type === "audio") data = block.data;
  else if (block.type === "resource") {
    const inner = block.resource as Record<string, unknown> | undefined;
    data = typeof inner === "object" && inner !== null ? inner.blob : undefined;
  }
  return typeof data === "string" && data !== "" && BASE64.test(data) ? data : undefined;
}

/** Texts this long are sanitised in pieces (between lines), to bound the regexes' memory. */
const PIECE = 256 * 1024;

/** `sanitizeText`, a piece of lines at a time for a long text without terminal escapes
 * (which may span lines), handed back as it is when no piece changed: no copy when clean. */
function sanitizeLarge(text: string): string {
  if (text.length <= PIECE || text.includes("\u001B")) return sanitizeText(text);
  const pieces: string[] = [];
  let changed = false;
  for (let at = 0; at < text.length;) {
    const end = text.indexOf("\n", at + PIECE);
    const next = end === -1 ? text.length : end + 1;
    const piece = text.slice(at, next);
    const clean = sanitizeText(piece);
    if (clean !== piece) changed = true;
    pieces.push(clean);
    at = next;
  }
  return changed ? pieces.join("") : text;
}

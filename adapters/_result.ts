/**
 * Private: a tool's answer as the text a model reads. Calls go out with `shape: "llm"`, so a
 * client or hub answers `{ text, isError, … }` and that text is used as it is. A structural
 * source that hands back a plain `ToolResult` anyway is shaped here by the same projection
 * ({@linkcode shapeResult}), so every adapter hands a model one form. Pure.
 *
 * @module
 */

import type { ToolResult } from "../protocol/shapes.ts";
import { shapeResult } from "../governance/shape.ts";
import { isObject } from "../protocol/json.ts";

/** A tool's answer for a model. */
export interface ModelText {
  /** The text. */
  text: string;
  /** Whether the tool reported a failure. */
  isError: boolean;
}

/**
 * The text of what a tool call returned: a shaped answer's `text`, or a `ToolResult` shaped.
 *
 * @param value What the source's `callTool` resolved with.
 * @returns The text and whether it reports a failure.
 */
export function modelText(value: unknown): ModelText {
  if (!isObject(value)) {
    return { text: value === undefined ? "" : JSON.stringify(value), isError: false };
  }
  const isError = value.isError === true;
  if (typeof value.text === "string") return { text: value.text, isError };
  const content = Array.isArray(value.content) ? value.content : [];
  const shaped = shapeResult({ ...value, content, isError } as ToolResult);
  return { text: shaped.text, isError };
}

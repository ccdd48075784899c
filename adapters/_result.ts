/**
 * Private: a tool's answer as the text a model reads. Calls go out with `shape: "llm"`; a
 * source that shapes answers `{ text, isError, … }` and that text is used as it is. A
 * source that does not (a plain `ToolResult`) gets its content joined here: text blocks as
 * they are, an embedded text resource by its text, other blocks by a one-line mention, and
 * the structured content as JSON when there is no text. Pure.
 *
 * @module
 */

import { isObject } from "./_walk.ts";

/** A tool's answer for a model. */
export interface ModelText {
  /** The text. */
  text: string;
  /** Whether the tool reported a failure. */
  isError: boolean;
}

/** One content block as text. */
function blockText(block: Record<string, unknown>): string {
  switch (block.type) {
    case "text":
      return String(block.text ?? "");
    case "resource": {
      const resource = isObject(block.resource) ? block.resource : {};
      if (typeof resource.text === "string") return resource.text;
      return `[resource ${String(resource.uri ?? "")}]`;
    }
    case "resource_link":
      return `[resource ${String(block.uri ?? "")}${block.name ? ` (${block.name})` : ""}]`;
    case "image":
    case "audio":
      return `[${block.type} ${String(block.mimeType ?? "")}]`.replace(" ]", "]");
    default:
      return `[${String(block.type)}]`;
  }
}

/**
 * The text of what a tool call returned: a shaped answer's `text`, or a `ToolResult`'s
 * content joined.
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
  const blocks = Array.isArray(value.content) ? value.content.filter(isObject) : [];
  const texts = blocks.map(blockText).filter((t) => t !== "");
  if (!blocks.some((b) => b.type === "text") && value.structuredContent !== undefined) {
    texts.push(JSON.stringify(value.structuredContent));
  }
  return { text: texts.join("\n"), isError };
}

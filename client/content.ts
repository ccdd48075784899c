/**
 * Reading content blocks: {@linkcode isContent} tells a block's type to TypeScript, and
 * {@linkcode resultText} gives a result's text in one string. `contentProblem` checks the
 * required members of the known types as a result arrives.
 *
 * @module
 */

import type { ContentBlock, KnownContent, KnownContentType } from "./shapes.ts";

/**
 * Whether `block` is a content block of the known `type`, as a type guard: after it,
 * `block.text` (for `"text"`) is a `string` without a cast.
 *
 * @param block A block from a result's `content`.
 * @param type The type to test for.
 * @returns `true` when the block has that type.
 *
 * @example Read the text blocks of a result
 * ```ts
 * import { isContent } from "./content.ts";
 * import type { ContentBlock } from "./shapes.ts";
 *
 * const content: ContentBlock[] = [{ type: "text", text: "hi" }, { type: "image", data: "", mimeType: "image/png" }];
 * const texts: string[] = content.filter((block) => isContent(block, "text")).map((block) => block.text);
 * if (texts.join() !== "hi") throw new Error("unexpected");
 * ```
 */
export function isContent<T extends KnownContentType>(
  block: ContentBlock | undefined,
  type: T,
): block is Extract<KnownContent, { type: T }> {
  return typeof block === "object" && block !== null && block.type === type;
}

/**
 * The text of a tool result (or any `{ content }`): its `text` blocks joined with
 * `separator`, other blocks left out. A result without text blocks gives `""`.
 *
 * @param result A `ToolResult`, or anything with a `content` array.
 * @param separator What goes between blocks (default `"\n"`).
 * @returns The text.
 *
 * @example
 * ```ts
 * import { resultText } from "./content.ts";
 *
 * const result = { content: [{ type: "text" as const, text: "one" }, { type: "text" as const, text: "two" }] };
 * if (resultText(result) !== "one\ntwo") throw new Error("unexpected");
 * ```
 */
export function resultText(
  result: { readonly content: readonly ContentBlock[] },
  separator = "\n",
): string {
  const texts: string[] = [];
  for (const block of result.content) if (isContent(block, "text")) texts.push(block.text);
  return texts.join(separator);
}

const REQUIRED: Record<KnownContentType, readonly string[]> = {
  text: ["text"],
  image: ["data", "mimeType"],
  audio: ["data", "mimeType"],
  resource_link: ["uri", "name"],
  resource: [],
};

/**
 * What is wrong with a list of content blocks, or `undefined` when each block is an object
 * with a string `type` and a known type's required members have their types.
 *
 * @param content The `content` a server sent.
 * @returns A short description of the first problem.
 */
export function contentProblem(content: readonly unknown[]): string | undefined {
  for (let i = 0; i < content.length; i++) {
    const block = content[i] as Record<string, unknown> | null;
    if (typeof block !== "object" || block === null || Array.isArray(block)) {
      return `content[${i}] is not an object`;
    }
    if (typeof block.type !== "string") return `content[${i}] has no string type`;
    if (!Object.hasOwn(REQUIRED, block.type)) continue;
    const type = block.type as KnownContentType;
    for (const key of REQUIRED[type]) {
      if (typeof block[key] !== "string") {
        return `content[${i}] (${type}) has no string ${key}`;
      }
    }
    if (type === "resource") {
      const resource = block.resource as Record<string, unknown> | null;
      if (typeof resource !== "object" || resource === null || typeof resource.uri !== "string") {
        return `content[${i}] (resource) has no resource with a string uri`;
      }
    }
  }
  return undefined;
}

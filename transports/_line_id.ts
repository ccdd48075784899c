/**
 * Private: the id of a JSON-RPC response read from the first bytes of a message too large to
 * keep (a stdio line over `maxMessageBytes`), so that its request can fail at once instead of
 * waiting for its timeout. The scan is small and careful: it reads the top-level members in
 * order and gives an id only when an `"id"` member (a string or a number) comes before
 * `"result"` or `"error"`, with nothing nested before them and no `"method"` (a server's
 * request). Anything else, or a head cut too soon, gives `undefined`: the caller then only
 * warns.
 *
 * @module
 */

/** How many bytes of an oversized message are kept for {@linkcode leadingResponseId}. */
export const HEAD_BYTES = 1024;

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const LITERAL = /true|false|null/y;

/**
 * The id of the response that `head` begins, when its first members show it.
 *
 * @param head The first characters of the message's text.
 * @returns The id, or `undefined` when the head does not show a response's id for certain.
 *
 * @example
 * ```ts
 * import { leadingResponseId } from "./_line_id.ts";
 *
 * if (leadingResponseId('{"jsonrpc":"2.0","id":7,"result":{"content":[') !== 7) {
 *   throw new Error("missed the id");
 * }
 * if (leadingResponseId('{"result":{},"id":7}') !== undefined) throw new Error("guessed");
 * ```
 */
export function leadingResponseId(head: string): string | number | undefined {
  let at = 0;
  const space = () => {
    while (at < head.length && " \t\n\r".includes(head[at])) at++;
  };
  /** A JSON string at `at` (escapes decoded), or `undefined` when it does not end here. */
  const string = (): string | undefined => {
    if (head[at] !== '"') return undefined;
    let end = at + 1;
    while (end < head.length && head[end] !== '"') end += head[end] === "\\" ? 2 : 1;
    if (end >= head.length) return undefined;
    try {
      const value = JSON.parse(head.slice(at, end + 1)) as string;
      at = end + 1;
      return value;
    } catch {
      return undefined;
    }
  };
  /** A number or literal at `at`, as its text, or `undefined`. */
  const token = (pattern: RegExp): string | undefined => {
    pattern.lastIndex = at;
    const match = pattern.exec(head);
    if (match === null) return undefined;
    at += match[0].length;
    return match[0];
  };

  space();
  if (head[at++] !== "{") return undefined;
  let id: string | number | undefined;
  for (;;) {
    space();
    const key = string();
    if (key === undefined) return undefined;
    space();
    if (head[at++] !== ":") return undefined;
    space();
    if (key === "result" || key === "error") return id;
    if (key === "method") return undefined;
    if (key === "id") {
      if (id !== undefined) return undefined; // a repeated key: unsure which counts
      const number = head[at] === '"' ? undefined : token(NUMBER);
      const value = number === undefined ? string() : Number(number);
      if (value === undefined) return undefined;
      id = value;
    } else if (string() === undefined && token(NUMBER) === undefined) {
      // Not a string or number: a literal is skipped, a nested value ends the scan.
      if (token(LITERAL) === undefined) return undefined;
    }
    space();
    // The next member must have begun within the head (a value cut at its end is unsure).
    if (head[at++] !== ",") return undefined;
  }
}

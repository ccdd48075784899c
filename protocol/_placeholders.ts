/**
 * Private: the pieced reader's placeholders (`pieced_json.ts`). A long string stands in the
 * parsed structure as `"\u0000"` and its number until the value is whole; then each is put
 * back.
 *
 * @module
 */

/** The long string a placeholder stands for, or `undefined` for any other value. */
function placed(value: unknown, strings: string[]): string | undefined {
  return typeof value === "string" && value.charCodeAt(0) === 0
    ? strings[Number(value.slice(1))]
    : undefined;
}

/** Puts the long strings back in place of their placeholders (without recursion). */
export function fill(root: unknown, strings: string[]): unknown {
  const top = placed(root, strings);
  if (top !== undefined) return top;
  let left = strings.length;
  const stack: unknown[] = [root];
  while (left > 0 && stack.length > 0) {
    const node = stack.pop();
    if (typeof node !== "object" || node === null) continue;
    // An array's places are its indices, an object's its keys.
    const holder = node as Record<string | number, unknown>;
    const keys: Iterable<string | number> = Array.isArray(node) ? node.keys() : Object.keys(node);
    for (const key of keys) {
      const item = holder[key];
      const string = placed(item, strings);
      if (string !== undefined) {
        holder[key] = string;
        left--;
      } else if (typeof item === "object" && item !== null) stack.push(item);
    }
  }
  return root;
}

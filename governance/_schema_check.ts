/**
 * Private: the checks that make a schema usable without a network, before the validator
 * meets it on a call: every `$ref` resolves inside the schema, every `pattern` (and
 * `patternProperties` key) is a valid regular expression, every `type` is a JSON type.
 *
 * @module
 */

import { isObject } from "../protocol/json.ts";

const TYPES = new Set(["array", "boolean", "integer", "null", "number", "object", "string"]);

/**
 * The value at a JSON pointer.
 *
 * @param value The document.
 * @param path The pointer (`""` is the whole document).
 * @returns The value there, or `undefined`.
 */
export function pointer(value: unknown, path: string): unknown {
  if (path === "") return value;
  let at = value;
  for (const raw of path.slice(1).split("/")) {
    const part = decodeURIComponent(raw).replaceAll("~1", "/").replaceAll("~0", "~");
    if (Array.isArray(at)) at = at[Number(part)];
    else if (isObject(at)) at = Object.hasOwn(at, part) ? at[part] : undefined;
    else return undefined;
  }
  return at;
}

/**
 * What makes a schema unusable without a network.
 *
 * @param root The whole schema (where `$ref`s resolve).
 * @param node The part being checked.
 * @param at Its location, for the message.
 * @returns The problem, or `undefined` when there is none.
 */
export function schemaProblem(
  root: Record<string, unknown>,
  node: unknown,
  at: string,
): string | undefined {
  if (Array.isArray(node)) {
    for (let i = 0; i < node.length; i++) {
      const found = schemaProblem(root, node[i], `${at}/${i}`);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  if (!isObject(node)) return undefined;
  for (const [key, value] of Object.entries(node)) {
    if (key === "enum" || key === "const" || key === "default" || key === "examples") continue;
    if (key === "$ref" && typeof value === "string" && !resolves(root, value)) {
      return `$ref ${JSON.stringify(value)} at ${at} does not resolve inside the schema ` +
        "(remote references are not fetched)";
    }
    if (key === "pattern" && typeof value === "string" && !regexOk(value)) {
      return `pattern ${JSON.stringify(value)} at ${at} is not a valid regular expression`;
    }
    if (key === "patternProperties" && isObject(value)) {
      const bad = Object.keys(value).find((p) => !regexOk(p));
      if (bad !== undefined) {
        return `patternProperties key ${JSON.stringify(bad)} at ${at} is invalid`;
      }
    }
    if (key === "type" && !typeOk(value)) {
      return `type ${JSON.stringify(value)} at ${at} is not a JSON type`;
    }
    if (key === "properties" && isObject(value)) {
      // Property names are data, not keywords: only their schemas are checked.
      for (const [name, sub] of Object.entries(value)) {
        const found = schemaProblem(root, sub, `${at}/properties/${name}`);
        if (found !== undefined) return found;
      }
      continue;
    }
    const found = schemaProblem(root, value, `${at}/${key}`);
    if (found !== undefined) return found;
  }
  return undefined;
}

function typeOk(value: unknown): boolean {
  const types = Array.isArray(value) ? value : [value];
  return types.every((t) => typeof t === "string" && TYPES.has(t));
}

function regexOk(pattern: string): boolean {
  try {
    new RegExp(pattern, "u");
    return true;
  } catch {
    return false;
  }
}

/** Whether a `$ref` points inside the schema: a JSON pointer, an anchor, or an `$id`. */
function resolves(root: Record<string, unknown>, ref: string): boolean {
  if (ref === "#") return true;
  if (ref.startsWith("#/")) return pointer(root, ref.slice(1)) !== undefined;
  if (ref.startsWith("#")) return findKey(root, "$anchor", ref.slice(1));
  return findKey(root, "$id", ref);
}

function findKey(node: unknown, key: string, value: string): boolean {
  if (Array.isArray(node)) return node.some((item) => findKey(item, key, value));
  if (!isObject(node)) return false;
  if (node[key] === value) return true;
  return Object.values(node).some((item) => findKey(item, key, value));
}

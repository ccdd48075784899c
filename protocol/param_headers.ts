/**
 * The `x-mcp-header` rules: the declarations of a tool's input schema that mirror arguments
 * into `Mcp-Param-*` headers, the headers of one call, and the tools whose declarations are
 * invalid.
 *
 * @module
 */

import { isObject } from "./json.ts";
import { encodeHeaderValue } from "./headers.ts";
import { McpError } from "./errors.ts";

/** One valid `x-mcp-header` declaration of a tool's input schema. */
export interface McpHeaderDeclaration {
  /** The declared name; the header is `Mcp-Param-{name}`. */
  name: string;
  /** The property names from the schema root to the argument. */
  path: string[];
}

/** The outcome of {@linkcode mcpHeaderDeclarations}. */
export type McpHeaderDeclarations =
  | { ok: true; headers: McpHeaderDeclaration[] }
  | { ok: false; reason: string };

/** A tool dropped by {@linkcode filterToolsWithValidHeaders}, and why. */
export interface DroppedTool {
  /** The tool's name. */
  name: string;
  /** Why its `x-mcp-header` declarations are invalid. */
  reason: string;
}

const KEYWORD = "x-mcp-header";
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const HEADER_TYPES = new Set(["string", "integer", "boolean"]);
// Keywords whose value is a map of subschemas (besides `properties`), one subschema, or an
// array of subschemas. Anything else (`enum`, `default`, `examples`, …) holds data.
const SCHEMA_MAPS = [
  "$defs",
  "definitions",
  "patternProperties",
  "dependentSchemas",
  "dependencies",
];
const SCHEMA_ONE_OR_MANY = [
  "items",
  "additionalItems",
  "prefixItems",
  "additionalProperties",
  "unevaluatedItems",
  "unevaluatedProperties",
  "contains",
  "propertyNames",
  "not",
  "if",
  "then",
  "else",
  "allOf",
  "anyOf",
  "oneOf",
];

function check(node: Record<string, unknown>, path: string[] | null, where: string): string {
  const name = node[KEYWORD];
  if (path === null || path.length === 0) {
    return `${KEYWORD} at ${where || "/"} is not reached from the root through properties`;
  }
  if (typeof name !== "string" || !TOKEN.test(name)) {
    return `${KEYWORD} at ${where} must be a non-empty header token`;
  }
  if (typeof node.type !== "string" || !HEADER_TYPES.has(node.type)) {
    return `${KEYWORD} at ${where} is not on a string, integer or boolean property`;
  }
  if (node.$ref !== undefined) return `${KEYWORD} at ${where} sits beside $ref`;
  return "";
}

/** Walks schema positions; returns the first problem, or `""`. `path` is null off `properties`. */
function walk(
  node: unknown,
  path: string[] | null,
  where: string,
  out: McpHeaderDeclaration[],
  ancestors: Set<object>,
): string {
  if (!isObject(node) || ancestors.has(node)) return "";
  if (node[KEYWORD] !== undefined) {
    const problem = check(node, path, where);
    if (problem) return problem;
    out.push({ name: node[KEYWORD] as string, path: path as string[] });
  }
  const children: [unknown, string[] | null, string][] = [];
  if (isObject(node.properties)) {
    for (const [key, sub] of Object.entries(node.properties)) {
      children.push([sub, path === null ? null : [...path, key], `${where}/properties/${key}`]);
    }
  }
  for (const keyword of SCHEMA_MAPS) {
    const map = node[keyword];
    if (!isObject(map)) continue;
    for (const [key, sub] of Object.entries(map)) {
      children.push([sub, null, `${where}/${keyword}/${key}`]);
    }
  }
  for (const keyword of SCHEMA_ONE_OR_MANY) {
    const value = node[keyword];
    if (Array.isArray(value)) {
      value.forEach((sub, i) => children.push([sub, null, `${where}/${keyword}/${i}`]));
    } else children.push([value, null, `${where}/${keyword}`]);
  }
  ancestors.add(node);
  try {
    for (const [sub, subPath, subWhere] of children) {
      const problem = walk(sub, subPath, subWhere, out, ancestors);
      if (problem) return problem;
    }
  } finally {
    ancestors.delete(node);
  }
  return "";
}

/**
 * Reads and validates the `x-mcp-header` declarations of a tool's `inputSchema`. Each must be
 * a non-empty RFC 9110 token, unique case-insensitively, on a `string`, `integer` or
 * `boolean` property reached from the root through `properties` alone (one found under
 * `items`, `oneOf`/`anyOf`/`allOf`/`not`, `if`/`then`/`else`, `$defs`, or beside `$ref` makes
 * the whole schema invalid). Never throws.
 *
 * @param inputSchema A tool's input schema.
 * @returns The declarations (possibly none), or why the schema's declarations are invalid.
 *
 * @example
 * ```ts
 * import { mcpHeaderDeclarations } from "./param_headers.ts";
 *
 * const ok = mcpHeaderDeclarations({
 *   type: "object",
 *   properties: { region: { type: "string", "x-mcp-header": "Region" } },
 * });
 * if (!ok.ok || ok.headers[0].name !== "Region" || ok.headers[0].path[0] !== "region") {
 *   throw new Error("expected one declaration");
 * }
 * const bad = mcpHeaderDeclarations({
 *   type: "object",
 *   properties: { n: { type: "number", "x-mcp-header": "N" } },
 * });
 * if (bad.ok) throw new Error("number properties cannot carry x-mcp-header");
 * ```
 */
export function mcpHeaderDeclarations(inputSchema: unknown): McpHeaderDeclarations {
  const headers: McpHeaderDeclaration[] = [];
  let problem: string;
  try {
    problem = walk(inputSchema, [], "", headers, new Set());
  } catch {
    problem = "the schema could not be read";
  }
  if (problem) return { ok: false, reason: problem };
  const names = new Set<string>();
  for (const { name } of headers) {
    const folded = name.toLowerCase();
    if (names.has(folded)) return { ok: false, reason: `${KEYWORD} "${name}" is declared twice` };
    names.add(folded);
  }
  return { ok: true, headers };
}

/**
 * The `Mcp-Param-{name}` headers for a `tools/call`, read from `args` at each declaration's
 * path and encoded with {@linkcode encodeHeaderValue}. An absent or `null` value gives no
 * header.
 *
 * @param declarations From {@linkcode mcpHeaderDeclarations}.
 * @param args The call's `arguments`.
 * @returns The header names and values.
 * @throws {McpError} Kind `validation` (reason `invalid_header_value`) when a value is not a
 * string, a boolean or an integer within ±(2^53−1). The value is not in the message.
 *
 * @example
 * ```ts
 * import { paramHeaders } from "./param_headers.ts";
 *
 * const headers = paramHeaders([{ name: "Region", path: ["region"] }], { region: "us-west1" });
 * if (headers["Mcp-Param-Region"] !== "us-west1") throw new Error("expected the header");
 * if (Object.keys(paramHeaders([{ name: "R", path: ["r"] }], { r: null })).length !== 0) {
 *   throw new Error("null gives no header");
 * }
 * ```
 */
export function paramHeaders(
  declarations: readonly McpHeaderDeclaration[],
  args: unknown,
): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const { name, path } of declarations) {
    let value: unknown = args;
    for (const key of path) {
      value = isObject(value) && Object.hasOwn(value, key) ? value[key] : undefined;
    }
    if (value === undefined || value === null) continue;
    if (
      typeof value !== "string" && typeof value !== "boolean" &&
      !(typeof value === "number" && Number.isSafeInteger(value))
    ) {
      throw new McpError(
        `The argument at ${path.join(".")} cannot be sent as the Mcp-Param-${name} header`,
        { kind: "validation", reason: "invalid_header_value" },
      );
    }
    headers[`Mcp-Param-${name}`] = encodeHeaderValue(value);
  }
  return headers;
}

/**
 * Splits tools into those whose `inputSchema` has valid `x-mcp-header` declarations (or none)
 * and those to drop (with the reason, for a warning).
 *
 * @param tools Tools as listed by the server.
 * @returns The kept tools, in order, and the dropped ones.
 *
 * @example
 * ```ts
 * import { filterToolsWithValidHeaders } from "./param_headers.ts";
 *
 * const { kept, dropped } = filterToolsWithValidHeaders([
 *   { name: "ok", inputSchema: { type: "object" } },
 *   { name: "bad", inputSchema: { type: "object", "x-mcp-header": "Root" } },
 * ]);
 * if (kept.length !== 1 || dropped[0].name !== "bad") throw new Error("unexpected");
 * ```
 */
export function filterToolsWithValidHeaders<T extends { name: string; inputSchema?: unknown }>(
  tools: readonly T[],
): { kept: T[]; dropped: DroppedTool[] } {
  const kept: T[] = [];
  const dropped: DroppedTool[] = [];
  for (const tool of tools) {
    const declarations = mcpHeaderDeclarations(tool?.inputSchema);
    if (declarations.ok) kept.push(tool);
    else dropped.push({ name: String(tool?.name), reason: declarations.reason });
  }
  return { kept, dropped };
}

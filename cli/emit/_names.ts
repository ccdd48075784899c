/**
 * Names for `emit-ts`: a server's tool names (hostile until checked) made into valid,
 * non-reserved, de-duplicated TypeScript identifiers, property keys written bare or quoted,
 * and string literals that carry any text as plain ASCII. Pure.
 *
 * @module
 */

/** Words that may not name a function or a type (reserved, strict-mode or TypeScript's own). */
const RESERVED = new Set([
  "arguments",
  "await",
  "break",
  "case",
  "catch",
  "class",
  "const",
  "continue",
  "debugger",
  "default",
  "delete",
  "do",
  "else",
  "enum",
  "eval",
  "export",
  "extends",
  "false",
  "finally",
  "for",
  "function",
  "if",
  "implements",
  "import",
  "in",
  "instanceof",
  "interface",
  "let",
  "new",
  "null",
  "package",
  "private",
  "protected",
  "public",
  "return",
  "static",
  "super",
  "switch",
  "this",
  "throw",
  "true",
  "try",
  "typeof",
  "undefined",
  "var",
  "void",
  "while",
  "with",
  "yield",
  // Types a generated name must not shadow.
  "any",
  "never",
  "unknown",
  "object",
  "string",
  "number",
  "boolean",
  "symbol",
  "bigint",
  "Array",
  "Record",
  "Promise",
  "Object",
  "String",
  "Number",
  "Boolean",
  "Error",
]);

/** The longest identifier made from a tool's name (before a de-duplicating suffix). */
const MAX_IDENTIFIER = 60;

/** The ASCII words of `text`: letters and digits, split at other characters and at case changes. */
function words(text: string): string[] {
  return text
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .replace(/([A-Z]+)([A-Z][a-z])/g, "$1 $2")
    .split(/[^A-Za-z0-9]+/)
    .filter((word) => word.length > 0);
}

const capital = (word: string) => word[0].toUpperCase() + word.slice(1).toLowerCase();

/**
 * `text` in camelCase, ASCII only, never empty, never starting with a digit and never a
 * reserved word (`fallback` stands in for a name without letters or digits).
 *
 * @example
 * ```ts
 * import { camelName } from "./_names.ts";
 *
 * if (camelName("get-sum") !== "getSum") throw new Error("unexpected");
 * if (camelName("delete") !== "deleteTool") throw new Error("unexpected");
 * if (camelName("3d render") !== "tool3dRender") throw new Error("unexpected");
 * ```
 */
export function camelName(text: string, fallback = "tool"): string {
  const parts = words(text);
  let name = parts.length === 0
    ? fallback
    : parts[0].toLowerCase() + parts.slice(1).map(capital).join("");
  if (/^[0-9]/.test(name)) name = fallback + name;
  name = name.slice(0, MAX_IDENTIFIER);
  return RESERVED.has(name) ? `${name}${capital(fallback)}` : name;
}

/** `text` in PascalCase, ASCII only, never empty and never starting with a digit. */
export function pascalName(text: string, fallback = "Tool"): string {
  const camel = camelName(text, fallback.toLowerCase());
  const name = camel[0].toUpperCase() + camel.slice(1);
  return RESERVED.has(name) ? `${name}${capital(fallback)}` : name;
}

/** Hands out names once each: a taken name gets the first free numeric suffix (2, 3, …). */
export class NameBook {
  readonly #taken = new Set<string>();

  /** @param reserved Names already in use (imports, helpers). */
  constructor(reserved: Iterable<string> = []) {
    for (const name of reserved) this.#taken.add(name);
  }

  /** `base`, or `base2`, `base3`… when taken; the name returned is then taken. */
  take(base: string): string {
    let name = base;
    for (let n = 2; this.#taken.has(name); n++) name = `${base}${n}`;
    this.#taken.add(name);
    return name;
  }
}

/**
 * `text` as a TypeScript string literal, every character outside printable ASCII written as
 * a `\u` escape (no line break, control, bidi or lone surrogate survives). Double quotes, or
 * single ones for a text with double quotes and no single ones (as the formatter prefers).
 */
export function tsString(text: string): string {
  const quote = text.includes('"') && !text.includes("'") ? "'" : '"';
  let out = quote;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    const char = text[i];
    if (char === quote || char === "\\") out += `\\${char}`;
    else if (code >= 0x20 && code < 0x7f) out += char;
    else out += `\\u${code.toString(16).padStart(4, "0")}`;
  }
  return out + quote;
}

/** A property key: bare when it is an identifier, else a quoted string literal. */
export function propertyKey(name: string): string {
  return /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(name) ? name : tsString(name);
}

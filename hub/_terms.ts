/**
 * Private: the tool search's tokenizer ({@linkcode terms}), which stems with Porter's
 * stemmer (`_porter.ts`). Text is cut at non-alphanumerics, camelCase humps and letter–digit
 * boundaries, lower-cased and stemmed, so `listIssues`, `list_issue` and "lists issues" meet.
 * Runs of CJK script become overlapping character pairs. No word list is used.
 *
 * ASCII text (nearly every tool catalogue) is cut by a scanner over its character codes; any
 * other text by one Unicode regular expression. Both cut ASCII the same way (a test holds
 * them to it).
 *
 * @module
 */

import { stem } from "./_porter.ts";

/** The most characters of one text indexed (a hostile description stays bounded). */
export const MAX_TEXT = 4_096;

const CJK_CLASS = "\\p{Script=Han}\\p{Script=Hiragana}\\p{Script=Katakana}\\p{Script=Hangul}";
const CJK = new RegExp(`[${CJK_CLASS}]`, "u");
/**
 * One token: a run of CJK; a capitalised or lower-case word (`Issues`, `list`); capitals not
 * followed by lower case (`HTTP` in `HTTPResponse`); other letters; digits.
 */
const TOKEN = new RegExp(
  `[${CJK_CLASS}]+|\\p{Lu}?[\\p{Ll}\\p{M}]+|\\p{Lu}+(?![\\p{Ll}])|[\\p{L}\\p{M}]+|\\p{N}+`,
  "gu",
);
// deno-lint-ignore no-control-regex
const NOT_ASCII = /[^\x00-\x7f]/;
/** Stems of words seen (bounded): the same words recur across a catalogue. */
const STEMS = new Map<string, string>();
const MAX_STEMS = 50_000;

function push(out: string[], word: string): void {
  let stemmed = STEMS.get(word);
  if (stemmed === undefined) {
    stemmed = stem(word);
    if (STEMS.size >= MAX_STEMS) STEMS.clear();
    STEMS.set(word, stemmed);
  }
  out.push(stemmed);
}

const isUpper = (c: number) => c >= 65 && c <= 90;
const isLower = (c: number) => c >= 97 && c <= 122;
const isDigit = (c: number) => c >= 48 && c <= 57;

/** ASCII text, cut as {@linkcode TOKEN} cuts it. */
function asciiTerms(source: string, out: string[]): void {
  const n = source.length;
  let i = 0;
  while (i < n) {
    const c = source.charCodeAt(i);
    let end = i + 1;
    if (isLower(c) || (isUpper(c) && i + 1 < n && isLower(source.charCodeAt(i + 1)))) {
      // A word, capitalised or not: one letter, then its lower-case run.
      while (end < n && isLower(source.charCodeAt(end))) end++;
    } else if (isUpper(c)) {
      // Capitals not followed by lower case: the last of a run that is leaves it (`HTTPRe…`).
      while (end < n && isUpper(source.charCodeAt(end))) end++;
      if (end < n && isLower(source.charCodeAt(end))) end--;
    } else if (isDigit(c)) {
      while (end < n && isDigit(source.charCodeAt(end))) end++;
    } else {
      i++;
      continue;
    }
    push(out, source.slice(i, end).toLowerCase());
    i = end;
  }
}

/** Any text, cut by the Unicode expression. */
function unicodeTerms(source: string, out: string[]): void {
  TOKEN.lastIndex = 0;
  for (let found = TOKEN.exec(source); found !== null; found = TOKEN.exec(source)) {
    const token = found[0];
    const first = token.charCodeAt(0);
    if (first >= 0x2e80 && CJK.test(token)) {
      // CJK has no spaces: overlapping pairs of its characters.
      if (token.length === 1) out.push(token);
      else for (let i = 0; i + 1 < token.length; i++) out.push(token.slice(i, i + 2));
      continue;
    }
    push(out, token.toLowerCase());
  }
}

/**
 * Cuts a text into search terms (see the module's documentation).
 *
 * @param text The text.
 * @param max The most characters read (the rest is not indexed).
 * @param unicode Cut with the Unicode expression even when the text is ASCII (tests compare).
 * @returns The terms, in order, repeats kept.
 *
 * @example
 * ```ts
 * import { terms } from "./_terms.ts";
 *
 * if (terms("listIssues of repos").join() !== "list,issu,of,repo") throw new Error("unexpected");
 * ```
 */
export function terms(text: string, max: number = MAX_TEXT, unicode = false): string[] {
  const out: string[] = [];
  const source = text.length > max ? text.slice(0, max) : text;
  if (!unicode && !NOT_ASCII.test(source)) asciiTerms(source, out);
  else unicodeTerms(source, out);
  return out;
}

/** A schema's parameter names and their descriptions, bounded. */
function paramsOf(schema: unknown): { names: string[]; texts: string[] } {
  const names: string[] = [];
  const texts: string[] = [];
  const walk = (node: unknown, depth: number) => {
    if (depth > MAX_DEPTH || typeof node !== "object" || node === null) return;
    const properties = (node as Record<string, unknown>).properties;
    if (typeof properties !== "object" || properties === null || Array.isArray(properties)) return;
    for (const [name, property] of Object.entries(properties)) {
      if (names.length >= MAX_PARAMS) return;
      names.push(name);
      if (typeof property !== "object" || property === null) continue;
      const description = (property as Record<string, unknown>).description;
      if (typeof description === "string") texts.push(description);
      walk(property, depth + 1);
      walk((property as Record<string, unknown>).items, depth + 1);
    }
  };
  walk(schema, 0);
  return { names, texts };
}
/** The most parameters (and nesting) read from one schema: the rest is not indexed. */
const MAX_PARAMS = 64;
const MAX_DEPTH = 3;

/**
 * A tool's tokenised form: the terms of its own name, title, description, parameter names
 * and parameter descriptions (in that order), each field's terms joined by spaces (a term
 * never holds one).
 */
export type ToolTerms = readonly string[];
/** How many fields a {@linkcode ToolTerms} has. */
export const TERM_FIELDS = 5;
/**
 * The tokenizer's version: a stored tokenised form of another version is not used (the
 * tool is cut again).
 */
export const TERMS_VERSION = 2;
/** The most characters of one stored field (its text's bound, with room for the spaces). */
export const MAX_FIELD_CHARS = 4 * MAX_TEXT;

const text = (value: unknown) => typeof value === "string" ? value : "";

interface Known {
  own: string;
  title: unknown;
  description: unknown;
  terms: ToolTerms;
}
/**
 * Tokenised forms by the tool's input schema object (its own name, title and description
 * must match too): a catalogue read again, merged again or read from the store is not cut
 * again.
 */
const KNOWN = new WeakMap<object, Known>();

const knownFor = (
  tool: { inputSchema: unknown; title?: unknown; description?: unknown },
  own: string,
) => {
  const schema = tool.inputSchema;
  if (typeof schema !== "object" || schema === null) return undefined;
  const known = KNOWN.get(schema);
  return known !== undefined && known.own === own && known.title === tool.title &&
      known.description === tool.description
    ? known.terms
    : undefined;
};

/**
 * Keeps a tool's tokenised form (e.g. one read from the store beside its catalogue), so
 * {@linkcode toolTerms} returns it instead of cutting the tool again.
 *
 * @param tool The tool (its input schema object is the key).
 * @param own Its own name on its server.
 * @param terms Its tokenised form.
 */
export function rememberTerms(
  tool: { inputSchema: unknown; title?: unknown; description?: unknown },
  own: string,
  terms: ToolTerms,
): void {
  const schema = tool.inputSchema;
  if (typeof schema !== "object" || schema === null) return;
  KNOWN.set(schema, { own, title: tool.title, description: tool.description, terms });
}

/**
 * A tool's tokenised form: kept ({@linkcode rememberTerms}) or cut now (and kept).
 *
 * @param tool The tool.
 * @param own Its own name on its server.
 * @returns Its terms by field.
 *
 * @example
 * ```ts
 * import { toolTerms } from "./_terms.ts";
 *
 * const tool = { name: "gh__listIssues", description: "Lists issues", inputSchema: {} };
 * const form = toolTerms(tool, "listIssues");
 * if (form.join("|") !== "list issu||list issu||") throw new Error("unexpected");
 * ```
 */
export function toolTerms(
  tool: { inputSchema: unknown; title?: unknown; description?: unknown },
  own: string,
): ToolTerms {
  const kept = knownFor(tool, own);
  if (kept !== undefined) return kept;
  const params = paramsOf(tool.inputSchema);
  const made = [
    terms(own),
    terms(text(tool.title)),
    terms(text(tool.description)),
    terms(params.names.join(" "), MAX_TEXT),
    terms(params.texts.join(" \n "), 2 * MAX_TEXT),
  ].map((field) => field.join(" "));
  rememberTerms(tool, own, made);
  return made;
}

/**
 * Whether a value read from the store is a tokenised form: {@linkcode TERM_FIELDS} strings,
 * each at most {@linkcode MAX_FIELD_CHARS} long.
 *
 * @param value The value.
 * @returns Whether it is.
 */
export function isToolTerms(value: unknown): value is ToolTerms {
  if (!Array.isArray(value) || value.length !== TERM_FIELDS) return false;
  for (const field of value) {
    if (typeof field !== "string" || field.length > MAX_FIELD_CHARS) return false;
  }
  return true;
}

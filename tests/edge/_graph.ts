/**
 * A module-graph walker for the edge tests: reads each local `.ts` file as text, finds its
 * import and export specifiers (comments blanked out first, so JSDoc examples do not count)
 * and follows the relative ones. Pure text work over `node:fs`, the same under Deno and Bun.
 *
 * @module
 */

import { readFileSync } from "node:fs";
import { fileURLToPath, pathToFileURL } from "node:url";

/** One local module of the graph. */
export interface GraphModule {
  /** Its `file:` URL. */
  url: string;
  /** Its path relative to the repository root, e.g. `client/client.ts`. */
  path: string;
  /** The file's text. */
  source: string;
  /** The text with comments blanked out (strings and code kept). */
  code: string;
  /** Every specifier it imports or re-exports, as written. */
  specifiers: string[];
}

/** A walked module graph. */
export interface ModuleGraph {
  /** The local modules, keyed by repository-relative path. */
  modules: Map<string, GraphModule>;
  /** Every non-relative specifier (npm packages, `node:` built-ins, …) with its importers. */
  external: Map<string, string[]>;
}

/** The repository root, as a `file:` URL ending in `/`. */
export const ROOT: URL = new URL("../../", import.meta.url);

/**
 * Blanks out `//` and `/* … *\/` comments, keeping string and template literals and
 * regular-expression literals intact, and keeping line breaks (so offsets stay close).
 */
export function stripComments(text: string): string {
  let out = "";
  let i = 0;
  // What the last significant token was, to tell a regex literal from a division.
  let lastSignificant = "";
  const templateDepth: number[] = []; // brace depth at each open `${`
  let braces = 0;
  const regexAllowedAfter =
    /[(,=:[!&|?{};+\-*%<>~^]$|\b(?:return|typeof|case|do|else|in|of|new|delete|void|throw|yield|await)$/;

  const readQuoted = (quote: string) => {
    const start = i;
    i++;
    while (i < text.length && text[i] !== quote) {
      if (text[i] === "\\") i++;
      else if (text[i] === "\n" && quote !== "`") break;
      i++;
    }
    i++;
    return text.slice(start, i);
  };

  // Reads template text from i (just after "`" or "}") to the closing "`" or an opening "${".
  const readTemplateChunk = () => {
    const start = i;
    while (i < text.length) {
      if (text[i] === "\\") {
        i += 2;
        continue;
      }
      if (text[i] === "`") {
        i++;
        return { chunk: text.slice(start, i), opened: false };
      }
      if (text[i] === "$" && text[i + 1] === "{") {
        i += 2;
        return { chunk: text.slice(start, i), opened: true };
      }
      i++;
    }
    return { chunk: text.slice(start), opened: false };
  };

  while (i < text.length) {
    const c = text[i];
    const next = text[i + 1];
    if (c === "/" && next === "/") {
      while (i < text.length && text[i] !== "\n") {
        out += " ";
        i++;
      }
      continue;
    }
    if (c === "/" && next === "*") {
      const end = text.indexOf("*/", i + 2);
      const stop = end === -1 ? text.length : end + 2;
      out += text.slice(i, stop).replace(/[^\n]/g, " ");
      i = stop;
      continue;
    }
    if (c === "'" || c === '"') {
      out += readQuoted(c);
      lastSignificant = "x";
      continue;
    }
    if (c === "`") {
      i++;
      const { chunk, opened } = readTemplateChunk();
      out += "`" + chunk;
      if (opened) templateDepth.push(braces);
      lastSignificant = "x";
      continue;
    }
    if (c === "/") {
      const before = lastSignificant.trimEnd();
      if (before === "" || regexAllowedAfter.test(before)) {
        // A regular-expression literal: copy up to the unescaped closing slash.
        const start = i;
        i++;
        let inClass = false;
        while (i < text.length && text[i] !== "\n") {
          if (text[i] === "\\") i++;
          else if (text[i] === "[") inClass = true;
          else if (text[i] === "]") inClass = false;
          else if (text[i] === "/" && !inClass) break;
          i++;
        }
        i++;
        while (i < text.length && /[a-z]/i.test(text[i])) i++;
        out += text.slice(start, i);
        lastSignificant = "x";
        continue;
      }
    }
    if (c === "{") braces++;
    if (c === "}") {
      if (templateDepth.length > 0 && templateDepth.at(-1) === braces) {
        templateDepth.pop();
        i++;
        const { chunk, opened } = readTemplateChunk();
        out += "}" + chunk;
        if (opened) templateDepth.push(braces);
        lastSignificant = "x";
        continue;
      }
      braces--;
    }
    out += c;
    if (!/\s/.test(c)) {
      lastSignificant = /[\w$]/.test(c)
        ? (/[\w$]$/.test(lastSignificant) ? lastSignificant + c : c)
        : c;
      if (lastSignificant.length > 16) lastSignificant = lastSignificant.slice(-16);
    }
    i++;
  }
  return out;
}

const STATIC_FROM =
  /(?:^|[;}\n])\s*(?:import|export)\s+(?:type\s+)?(?:[\w$*{}\s,]+?\s+from\s*)?["']([^"'\n]+)["']/g;
const MULTILINE_FROM = /(?:^|[;}\n])\s*(?:import|export)\b[^;"'`]*?\bfrom\s*["']([^"'\n]+)["']/g;
const DYNAMIC = /\bimport\s*\(\s*["'`]([^"'`\n]+)["'`]\s*[,)]/g;
const TYPE_QUERY = /\bimport\s*\(\s*["']([^"'\n]+)["']\s*\)\s*\./g;

/**
 * The specifiers a module imports or re-exports (static, side-effect, `import type`,
 * `export … from`, dynamic `import("…")` with a literal, and `import("…").T` types).
 *
 * @param code The module's text with comments already blanked out.
 */
export function specifiersOf(code: string): string[] {
  const found = new Set<string>();
  for (const pattern of [STATIC_FROM, MULTILINE_FROM, DYNAMIC, TYPE_QUERY]) {
    for (const match of code.matchAll(pattern)) found.add(match[1]);
  }
  return [...found];
}

const EAGER_FROM =
  /(?:^|[;}\n])\s*(?:import|export)\s+(type\s+)?([^;"'`]*?)\s*from\s*["']([^"'\n]+)["']/g;
const SIDE_EFFECT = /(?:^|[;}\n])\s*import\s*["']([^"'\n]+)["']/g;

/**
 * The specifiers a module loads as soon as it is loaded: value imports and re-exports and
 * side-effect imports; not `import type`, imports whose every name is a type, nor dynamic
 * `import("…")`.
 *
 * @param code The module's text with comments already blanked out.
 */
export function eagerSpecifiersOf(code: string): string[] {
  const found = new Set<string>();
  for (const match of code.matchAll(EAGER_FROM)) {
    if (match[1] !== undefined) continue;
    const names = /^\{([^}]*)\}$/.exec(match[2].trim());
    const items = names?.[1].split(",").map((item) => item.trim()).filter((item) => item !== "");
    if (items !== undefined && items.length > 0 && items.every((item) => /^type\s/.test(item))) {
      continue;
    }
    found.add(match[3]);
  }
  for (const match of code.matchAll(SIDE_EFFECT)) found.add(match[1]);
  return [...found];
}

/** Whether `code` uses a computed dynamic import the walker cannot follow. */
export function hasComputedImport(code: string): boolean {
  return /\bimport\s*\(\s*[^"'`\s)]/.test(code);
}

/**
 * Walks the local module graph from `entry` (a repository-relative path).
 *
 * @param entry E.g. `"http.ts"`.
 * @param options `eager`: follow only what loads with the entry ({@linkcode eagerSpecifiersOf}).
 * @returns Every local module reached, and every external specifier with its importers.
 */
export function walkGraph(entry: string, options: { eager?: boolean } = {}): ModuleGraph {
  const rootPath = fileURLToPath(ROOT);
  const modules = new Map<string, GraphModule>();
  const external = new Map<string, string[]>();
  const queue = [new URL(entry, ROOT).href];
  while (queue.length > 0) {
    const url = queue.shift()!;
    const filePath = fileURLToPath(url);
    const path = filePath.startsWith(rootPath) ? filePath.slice(rootPath.length) : filePath;
    if (modules.has(path)) continue;
    const source = readFileSync(filePath, "utf8");
    const code = stripComments(source);
    if (hasComputedImport(code)) {
      throw new Error(`${path} has a computed dynamic import the edge walker cannot follow`);
    }
    const specifiers = options.eager ? eagerSpecifiersOf(code) : specifiersOf(code);
    modules.set(path, { url, path, source, code, specifiers });
    for (const specifier of specifiers) {
      if (specifier.startsWith("./") || specifier.startsWith("../") || specifier.startsWith("/")) {
        queue.push(new URL(specifier, url).href);
      } else {
        const importers = external.get(specifier) ?? [];
        importers.push(path);
        external.set(specifier, importers);
      }
    }
  }
  return { modules, external };
}

/** The repository-relative path of a `file:` URL or absolute path under the root. */
export function relativePath(file: string): string {
  const url = file.startsWith("file:") ? file : pathToFileURL(file).href;
  return url.startsWith(ROOT.href) ? decodeURIComponent(url.slice(ROOT.href.length)) : url;
}

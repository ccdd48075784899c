/**
 * Doc comments for `emit-ts` from a server's titles and descriptions (hostile text): control,
 * escape, bidi and invisible characters removed (the library's one sanitiser), `*\/` unable to
 * end the comment, lines and length capped. Pure.
 *
 * @module
 */

import { sanitizeText } from "../../protocol/text.ts";

/** The most characters of one comment's text. */
export const MAX_COMMENT_CHARS = 1_000;
/** The most lines of one comment's text. */
export const MAX_COMMENT_LINES = 20;

/**
 * `text` made safe inside a `/** … *\/` comment: one string of lines (none empty at either
 * end), or `""` when nothing is left. `sanitizeText` removes terminal escape sequences,
 * controls, invisible and bidirectional characters; `*\/` becomes `*\/` with a backslash,
 * tabs become spaces, and the text is capped at {@linkcode MAX_COMMENT_CHARS} characters and
 * {@linkcode MAX_COMMENT_LINES} lines (`…` marks a cut).
 *
 * @example
 * ```ts
 * import { commentText } from "./_comment.ts";
 *
 * const hostile = "ends *" + "/ here\u001b[2J";
 * if (commentText(hostile) !== "ends *\\/ here") throw new Error("unexpected");
 * ```
 */
export function commentText(text: unknown): string {
  if (typeof text !== "string") return "";
  let clean = sanitizeText(text).replace(/\t/g, "  ");
  let cut = false;
  if (clean.length > MAX_COMMENT_CHARS) {
    clean = clean.slice(0, MAX_COMMENT_CHARS);
    // Never end on half a surrogate pair.
    if (/[\ud800-\udbff]$/.test(clean)) clean = clean.slice(0, -1);
    cut = true;
  }
  let lines = clean.split("\n").map((line) => line.trimEnd());
  if (lines.length > MAX_COMMENT_LINES) {
    lines = lines.slice(0, MAX_COMMENT_LINES);
    cut = true;
  }
  while (lines.length > 0 && lines[0].trim() === "") lines.shift();
  while (lines.length > 0 && lines[lines.length - 1].trim() === "") lines.pop();
  // Runs of blank lines to one.
  lines = lines.filter((line, i) => line !== "" || lines[i - 1] !== "");
  let joined = lines.join("\n");
  if (cut && joined !== "") joined += " …";
  // `*/` would end the comment; so would one split by the cut above.
  return joined.replace(/\*\//g, "*\\/").replace(/\*$/, "* ");
}

/** `text` on one line (for a header or a name in prose), safe in a comment. */
export function commentLine(text: unknown, max = 200): string {
  const line = commentText(text).replace(/\s*\n\s*/g, " ");
  return line.length > max ? `${line.slice(0, max).replace(/[\ud800-\udbff]$/, "")}…` : line;
}

/** The width doc comments are wrapped to (the formatter's default). */
const LINE_WIDTH = 80;

/** `line` broken at spaces into lines of at most `width` characters (a longer word stays whole). */
function wrap(line: string, width: number): string[] {
  if (line.length <= width) return [line];
  const out: string[] = [];
  let current = "";
  for (const word of line.split(" ")) {
    if (current !== "" && current.length + 1 + word.length > width) {
      out.push(current);
      current = word;
    } else current = current === "" ? word : `${current} ${word}`;
  }
  if (current !== "") out.push(current);
  return out;
}

/**
 * A `/** … *\/` block, indented by `indent`, of the non-empty paragraphs given (already
 * made safe with {@linkcode commentText}); `""` when there are none.
 */
export function docBlock(paragraphs: readonly string[], indent = ""): string {
  const kept = paragraphs.filter((p) => p !== "");
  if (kept.length === 0) return "";
  const width = Math.max(40, LINE_WIDTH - indent.length - 3);
  const lines = kept.join("\n\n").split("\n").flatMap((line) => wrap(line, width));
  if (lines.length === 1) return `${indent}/** ${lines[0]} */\n`;
  const body = lines.map((line) => line === "" ? `${indent} *` : `${indent} * ${line}`);
  return `${indent}/**\n${body.join("\n")}\n${indent} */\n`;
}

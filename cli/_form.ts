/**
 * The server's questions on a terminal: an elicitation form read from its `requestedSchema`,
 * one prompt a field (its title, description, constraints and default), an invalid value
 * asked again with the reason, an empty required field asked again, an empty optional one
 * left out; a URL request printed (checked, the host shown apart) and opened on request.
 * Ctrl-C answers `cancel`; the run goes on. Everything the server wrote is sanitised before
 * it reaches the terminal, and the prompts go to standard error (standard output keeps the
 * result). Loaded with the first question on a terminal.
 *
 * @module
 */

import type { ElicitResult } from "../mod.ts";
import { type FormField, formFields, readField, setOwn } from "../protocol/elicitation_form.ts";
import { sanitizeText } from "../protocol/text.ts";
import { openBrowser } from "./_browser.ts";
import { clean } from "./_format.ts";
import { lineReader } from "./_line_reader.ts";
import { holdProgress } from "./_progress.ts";
import { paint, type Terminal } from "./terminal.ts";

/** Server text for the terminal: sanitised, controls removed (one line unless `multiline`). */
export function shown(text: unknown, multiline = false): string {
  return clean(sanitizeText(typeof text === "string" ? text : ""), multiline).trim();
}

function hint(field: FormField): string {
  const parts: string[] = [];
  switch (field.kind) {
    case "string":
      if (field.format) parts.push(shown(field.format));
      if (field.minLength !== undefined) parts.push(`at least ${field.minLength} characters`);
      if (field.maxLength !== undefined) parts.push(`at most ${field.maxLength} characters`);
      break;
    case "number":
    case "integer":
      parts.push(field.kind === "integer" ? "a whole number" : "a number");
      if (field.minimum !== undefined) parts.push(`from ${field.minimum}`);
      if (field.maximum !== undefined) parts.push(`to ${field.maximum}`);
      break;
    case "boolean":
      parts.push("y/n");
      break;
    case "choice":
      parts.push("a number");
      break;
    case "choices":
      parts.push("numbers, comma-separated");
      if (field.minItems !== undefined) parts.push(`at least ${field.minItems}`);
      if (field.maxItems !== undefined) parts.push(`at most ${field.maxItems}`);
      break;
  }
  if (field.default !== undefined) {
    const label = (value: unknown) =>
      field.options?.find((option) => option.value === value)?.label ?? String(value);
    const value = field.kind === "boolean"
      ? (field.default ? "y" : "n")
      : Array.isArray(field.default)
      ? field.default.map(label).join(",")
      : label(field.default);
    parts.push(`default ${shown(value)}`);
  }
  parts.push(field.required ? "required" : "optional");
  return parts.join(", ");
}

let queue: Promise<unknown> = Promise.resolve();

/** Runs `ask` after the questions before it (one form on the terminal at a time). */
function oneAtATime<T>(ask: () => Promise<T>): Promise<T> {
  const next = queue.then(ask, ask);
  queue = next.catch(() => {});
  return next;
}

/**
 * Asks the person at the terminal to answer an elicitation request (form or URL mode).
 *
 * @param term The terminal (with `keys`).
 * @param server The server's name, as the command line gave it.
 * @param params The `elicitation/create` params.
 * @param signal Aborts when the answer is no longer wanted (the form then answers `cancel`).
 * @returns The person's answer.
 */
export function askOnTerminal(
  term: Terminal,
  server: string,
  params: Record<string, unknown>,
  signal: AbortSignal,
): Promise<ElicitResult> {
  return oneAtATime(async () => {
    const release = holdProgress();
    const write = (text: string) => term.err(text);
    const reader = lineReader(term.keys!, write);
    try {
      write("\r\x1b[2K");
      write(
        `${paint(term.color, "bold", `${shown(server)} asks:`)} ${shown(params.message, true)}\n`,
      );
      const answer = params.mode === "url"
        ? await askUrl(term, params, reader, signal)
        : await askForm(term, params, reader, signal);
      write(answer.action === "accept" ? "" : `(answered ${answer.action})\n`);
      return answer;
    } finally {
      reader.close();
      release();
    }
  });
}

async function askForm(
  term: Terminal,
  params: Record<string, unknown>,
  reader: ReturnType<typeof lineReader>,
  signal: AbortSignal,
): Promise<ElicitResult> {
  const write = (text: string) => term.err(text);
  const fields = formFields(params.requestedSchema);
  if (typeof fields === "string") {
    write(`The form cannot be shown: ${shown(fields)}.\n`);
    return { action: "cancel" };
  }
  write(paint(term.color, "dim", "(Enter keeps a default; Ctrl-C cancels)") + "\n");
  const content: Record<string, unknown> = {};
  for (const field of fields) {
    const title = shown(field.title) || shown(field.key) || "(untitled)";
    const description = field.description === undefined ? "" : shown(field.description);
    write(`${paint(term.color, "cyan", title)}${description ? ` — ${description}` : ""}\n`);
    if (field.kind === "choice" || field.kind === "choices") {
      field.options!.forEach((option, i) => {
        const label = shown(option.label);
        const value = shown(option.value);
        write(`  ${i + 1}) ${label}${label === value ? "" : ` (${value})`}\n`);
      });
    }
    for (;;) {
      write(`${paint(term.color, "dim", `[${hint(field)}]`)} > `);
      const line = await reader.line(signal);
      if (line === undefined) return { action: "cancel" };
      if (line === "" || (line.trim() === "" && field.kind !== "string")) {
        if (field.default !== undefined) {
          setOwn(content, field.key, field.default);
          break;
        }
        if (field.required) {
          write(`  ${paint(term.color, "red", "✗")} required: type a value (Ctrl-C cancels)\n`);
          continue;
        }
        break; // optional and empty: left out
      }
      const read = readField(field, line);
      if ("reason" in read) {
        write(`  ${paint(term.color, "red", "✗")} ${title} ${shown(read.reason)}\n`);
        continue;
      }
      setOwn(content, field.key, read.value);
      break;
    }
  }
  write("Send these answers? [Y/n] > ");
  const send = await reader.line(signal);
  if (send === undefined) return { action: "cancel" };
  if (/^\s*n(o)?\s*$/i.test(send)) return { action: "decline" };
  return { action: "accept", content };
}

/**
 * The URL of a URL-mode request when it may be shown and opened: `http:` or `https:`,
 * without credentials; otherwise why not.
 *
 * @example
 * ```ts
 * import { checkedUrl } from "./_form.ts";
 *
 * if (typeof checkedUrl("https://example.com/a") === "string") throw new Error();
 * if (typeof checkedUrl("javascript:alert(1)") !== "string") throw new Error();
 * ```
 */
export function checkedUrl(raw: unknown): URL | string {
  if (typeof raw !== "string") return "the request has no URL";
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return "the URL is not valid";
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") {
    return `the URL's scheme ${shown(url.protocol)} is not http or https`;
  }
  if (url.username !== "" || url.password !== "") return "the URL holds credentials";
  return url;
}

async function askUrl(
  term: Terminal,
  params: Record<string, unknown>,
  reader: ReturnType<typeof lineReader>,
  signal: AbortSignal,
): Promise<ElicitResult> {
  const write = (text: string) => term.err(text);
  const url = checkedUrl(params.url);
  if (typeof url === "string") {
    write(`The server's link cannot be opened: ${url}.\n`);
    return { action: "cancel" };
  }
  write(`  ${shown(url.href)}\n`);
  write(`  site: ${paint(term.color, "bold", shown(url.hostname))}\n`);
  if (url.hostname.split(".").some((label) => label.startsWith("xn--"))) {
    write(`  ${paint(term.color, "yellow", "!")} the site's name is punycode: check it\n`);
  }
  for (;;) {
    write("Open it in your browser? [y = open, n = decline; Ctrl-C cancels] > ");
    const line = await reader.line(signal);
    if (line === undefined) return { action: "cancel" };
    if (/^\s*n(o)?\s*$/i.test(line)) return { action: "decline" };
    if (/^\s*y(es)?\s*$/i.test(line)) {
      openBrowser(url, term);
      write("Opened (if no browser shows it, open the link above yourself).\n");
      return { action: "accept" };
    }
  }
}

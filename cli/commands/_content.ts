/**
 * `prompt <name> [key=value …]`, `read <uri>` and `complete`: what the server hands back,
 * shaped for a terminal (or as JSON).
 *
 * @module
 */

import { writeFile } from "node:fs/promises";
import type { CompletionRef } from "../../mod.ts";
import { ArgumentsError } from "../_errors.ts";
import { didYouMean } from "../_suggest.ts";
import { type Command, EXIT, printJson, withClient } from "../_command.ts";
import { base64Size, clean, formatBytes, renderBlock } from "../_format.ts";
import { paint } from "../terminal.ts";
import { checkToolArgs, parseToolArgs } from "../_tool_args.ts";
import { SERVER_USAGE } from "./_lists.ts";

/** The `prompt` command. */
export const PROMPT_COMMAND: Command = {
  name: "prompt",
  words: true,
  summary: "Get a prompt",
  help: `Usage: conduit-mcp prompt <name> [key=value …] ${SERVER_USAGE}

Gets a prompt with its arguments (text values) and prints its messages, each under its
role. Missing required arguments are reported before the request is sent.
`,
  run: (ctx) =>
    withClient(ctx, async (client) => {
      const [name, ...pairs] = ctx.parsed.words;
      if (name === undefined) {
        throw new TypeError("prompt needs a name: prompt <name> [key=value …]");
      }
      const prompts = await client.listAllPrompts({ signal: ctx.signal });
      const prompt = prompts.find((p) => p.name === name);
      if (prompt === undefined) {
        const known = prompts.map((p) => p.name);
        throw new TypeError(
          `the server has no prompt ${name}${didYouMean(name, known)} (it has: ${
            known.join(", ") || "none"
          })`,
        );
      }
      const declared = prompt.arguments ?? [];
      const schema = {
        type: "object",
        properties: Object.fromEntries(declared.map((a) => [a.name, { type: "string" }])),
        required: declared.filter((a) => a.required).map((a) => a.name),
      };
      const args = parseToolArgs(pairs, ctx.parsed.flags.args, schema);
      const problems = checkToolArgs(args, schema);
      if (problems.length > 0) throw new ArgumentsError(problems);
      const result = await client.getPrompt(name, args, { signal: ctx.signal });
      if (ctx.parsed.flags.json) {
        printJson(ctx, result);
        return EXIT.ok;
      }
      if (typeof result.description === "string") ctx.term.out(`${clean(result.description)}\n\n`);
      for (const message of result.messages) {
        ctx.term.out(`${paint(ctx.term.color, "bold", `${clean(message.role)}:`)}\n`);
        ctx.term.out(`${renderBlock(message.content)}\n`);
      }
      return EXIT.ok;
    }),
};

/** A blob's bytes (base64, as the server sent it; refused when it is not base64). */
function blobBytes(base64: string): Uint8Array {
  let binary: string;
  try {
    binary = atob(base64.replace(/\s/g, ""));
  } catch {
    throw new Error("the server sent a blob that is not base64; nothing was saved");
  }
  return Uint8Array.from(binary, (char) => char.charCodeAt(0));
}

/** The `read` command. */
export const READ_COMMAND: Command = {
  name: "read",
  words: true,
  summary: "Read a resource",
  help: `Usage: conduit-mcp read <uri> [--out FILE] ${SERVER_USAGE}

Reads a resource and prints its text contents (binary contents as a type and size line).
--out FILE saves the contents instead, as they are (a blob decoded from base64); a
resource of several contents is refused. An http(s) resource URI needs the server given
with --server or after --.
`,
  run: (ctx) =>
    withClient(ctx, async (client) => {
      const [uri] = ctx.parsed.words;
      if (uri === undefined) throw new TypeError("read needs a resource URI: read <uri>");
      const result = await client.readResource(uri, { signal: ctx.signal });
      const out = ctx.parsed.flags.out;
      if (out !== undefined) {
        if (result.contents.length !== 1) {
          throw new TypeError(
            `the resource has ${result.contents.length} contents; --out saves exactly one ` +
              `(--json prints them all)`,
          );
        }
        const [content] = result.contents;
        const bytes = typeof content.text === "string"
          ? new TextEncoder().encode(content.text)
          : blobBytes(content.blob ?? "");
        await writeFile(out, bytes);
        const saved = { uri: content.uri, out, bytes: bytes.length, mimeType: content.mimeType };
        if (ctx.parsed.flags.json) printJson(ctx, saved);
        else {
          ctx.term.out(
            `Saved ${formatBytes(bytes.length)}${
              content.mimeType ? ` (${clean(content.mimeType)})` : ""
            } to ${out}\n`,
          );
        }
        return EXIT.ok;
      }
      if (ctx.parsed.flags.json) {
        printJson(ctx, result);
        return EXIT.ok;
      }
      const many = result.contents.length > 1;
      for (const content of result.contents) {
        if (many) ctx.term.out(paint(ctx.term.color, "dim", `— ${clean(content.uri)}`) + "\n");
        if (typeof content.text === "string") {
          const text = clean(content.text, true);
          ctx.term.out(text.endsWith("\n") ? text : text + "\n");
        } else {
          const size = formatBytes(base64Size(content.blob ?? ""));
          ctx.term.out(`[${clean(content.mimeType ?? "binary")}, ${size}]\n`);
        }
      }
      return EXIT.ok;
    }),
};

/** The `complete` command. */
export const COMPLETE_COMMAND: Command = {
  name: "complete",
  words: true,
  summary: "Ask for completions of an argument",
  help: `Usage: conduit-mcp complete (prompt <name> | resource <uri-template>) <arg>=<partial>
       [<other>=<value> …] ${SERVER_USAGE}

Asks the server for the values that complete <arg> of a prompt or a resource template,
given its partial value; further key=value pairs are the arguments already chosen.
`,
  run: (ctx) =>
    withClient(ctx, async (client) => {
      const [kind, target, argument, ...context] = ctx.parsed.words;
      if ((kind !== "prompt" && kind !== "resource") || target === undefined) {
        throw new TypeError("complete needs: complete prompt <name> <arg>=<partial>, or resource");
      }
      const eq = argument?.indexOf("=") ?? -1;
      if (argument === undefined || eq <= 0) {
        throw new TypeError("complete needs the argument to complete as <arg>=<partial>");
      }
      const ref: CompletionRef = kind === "prompt" ? { prompt: target } : { resource: target };
      const chosen = parseToolArgs(context, undefined, undefined) as Record<string, string>;
      const result = await client.complete(ref, [argument.slice(0, eq), argument.slice(eq + 1)], {
        signal: ctx.signal,
        ...(context.length > 0 ? { context: { arguments: chosen } } : {}),
      });
      if (ctx.parsed.flags.json) {
        printJson(ctx, result);
        return EXIT.ok;
      }
      for (const value of result.completion.values) ctx.term.out(`${clean(value)}\n`);
      if (result.completion.hasMore) {
        const total = result.completion.total;
        ctx.term.err(`(more${total !== undefined ? `: ${total} in all` : ""})\n`);
      }
      return EXIT.ok;
    }),
};

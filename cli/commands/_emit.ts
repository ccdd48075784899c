/**
 * `emit-ts`: writes a TypeScript module with one typed function per tool of the server (the
 * compiler in `../emit/` loads only for this command).
 *
 * @module
 */

import { writeFile } from "node:fs/promises";
import { type Command, EXIT, printJson, withClient } from "../_command.ts";
import { SERVER_ALONE_USAGE } from "./_lists.ts";

/** The `emit-ts` command. */
export const EMIT_TS_COMMAND: Command = {
  name: "emit-ts",
  summary: "Write a TypeScript module with a typed function per tool",
  help: `Usage: conduit-mcp emit-ts ${SERVER_ALONE_USAGE} [--out FILE] [--import SPECIFIER] [--json]

Writes a TypeScript module with one typed function per tool of the server: its arguments'
type from the tool's input schema, its result's type from the output schema (the function
then resolves with the structured content, and throws McpError if the tool failed; without
one it resolves with the ToolResult), doc comments from the titles and descriptions. Each
function takes a client of @conduit/mcp, the arguments and the call options.

  --out FILE            write the module there (default: standard output)
  --import SPECIFIER    where the module imports the library from
                        (default jsr:@conduit/mcp@^0.1.0: this version on, the same major)
  --json                print the functions made (and the module, without --out) as JSON
`,
  run: (ctx) =>
    withClient(ctx, async (client) => {
      const { flags } = ctx.parsed;
      if (flags.importFrom !== undefined && flags.importFrom.trim() === "") {
        throw new TypeError("--import needs a module specifier, e.g. jsr:@conduit/mcp@^0.1.0");
      }
      const tools = await client.listAllTools({ signal: ctx.signal, refresh: true });
      const info = client.serverInfo();
      const { emitModule } = await import("../emit/_module.ts");
      const emitted = emitModule({
        tools,
        server: {
          name: info.serverInfo?.name,
          version: info.serverInfo?.version,
          protocol: info.version,
        },
        importFrom: flags.importFrom,
      });
      if (flags.out !== undefined) await writeFile(flags.out, emitted.source);
      if (flags.json) {
        printJson(ctx, {
          ...(flags.out === undefined ? { source: emitted.source } : { out: flags.out }),
          functions: emitted.functions,
          skipped: emitted.skipped,
        });
      } else if (flags.out === undefined) ctx.term.out(emitted.source);
      else {
        const n = emitted.functions.length;
        ctx.term.out(`Wrote ${n} function${n === 1 ? "" : "s"} to ${flags.out}\n`);
      }
      if (emitted.skipped > 0) {
        ctx.term.err(`Left out ${emitted.skipped} tool(s) listed without a name or twice.\n`);
      }
      return EXIT.ok;
    }),
};

/**
 * The entries' {@linkcode createGovernance} and {@linkcode compileSchema}, light: the options
 * are checked at once (a misuse throws here, as before), and the pipeline (`pipeline.ts`:
 * approval, grants, pins, validation) and the schema validator load on first use. A client
 * created with a governance option (`tools`, `validate`, `policy`, `hooks`, `pin`) starts that
 * load when it is created; a plain client never does.
 *
 * @module
 */

import { checkGovernanceOptions } from "./check.ts";
import type { GovernanceOptions } from "./options.ts";
import type { Governance } from "./stages.ts";
import type { CompiledSchema } from "./validate.ts";

/**
 * Creates the governance stages from the options: the same stages as the pipeline's, loaded
 * on first use. Every stage but `visibleTools` waits for the load; `visibleTools` (the
 * synchronous view of what a listing already showed) shows nothing until the pipeline is
 * loaded, which any `listTools` waits for.
 *
 * @param options The filter, validation, policy, hooks and pins, a store and a warning sink.
 * @returns The stages.
 * @throws {TypeError} Naming a malformed option.
 *
 * @example Hide a tool, over a plain tool list
 * ```ts
 * import { createGovernance } from "./create.ts";
 *
 * const tools = [{ name: "add", inputSchema: {} }, { name: "drop", inputSchema: {} }];
 * const governance = createGovernance({ tools: { deny: ["drop"] } });
 * const shown = await governance.listTools(tools, { server: "math" });
 * if (shown.length !== 1 || shown[0].name !== "add") throw new Error("unexpected");
 * ```
 */
export function createGovernance(options: GovernanceOptions = {}): Governance {
  if (typeof options !== "object" || options === null) {
    throw new TypeError("createGovernance: options must be an object");
  }
  checkGovernanceOptions(options as Record<string, unknown>);
  let loaded: Governance | undefined;
  const loading = import("./pipeline.ts").then((pipeline) =>
    loaded = pipeline.createGovernance(options)
  );
  loading.catch(() => {}); // every stage that needs it reports a failed load
  const stages = async () => loaded ?? await loading;
  return {
    listTools: async (tools, scope, complete) =>
      await (await stages()).listTools(tools, scope, complete),
    visibleTools: (tools, scope) => loaded?.visibleTools(tools, scope) ?? [],
    callTool: async (call) => await (await stages()).callTool(call),
    getPrompt: async (name, args, scope, send) =>
      await (await stages()).getPrompt(name, args, scope, send),
    readResource: async (uri, scope, send) => await (await stages()).readResource(uri, scope, send),
    complete: async (ref, args, scope, send) =>
      await (await stages()).complete(ref, args, scope, send),
  };
}

/**
 * Compiles a JSON Schema (a tool's `inputSchema` or `outputSchema`) into a check that lists
 * every problem of a value, loading the validator first.
 *
 * @param schema The schema.
 * @returns The check.
 * @throws {McpError} kind `validation`, reason `invalid_schema`, saying what is wrong.
 *
 * @example
 * ```ts
 * import { compileSchema } from "./create.ts";
 *
 * const check = await compileSchema({ type: "object", properties: { n: { type: "integer" } } });
 * const [issue] = check({ n: "3" });
 * if (issue.path !== "/n" || issue.expected !== "integer") throw new Error("unexpected");
 * ```
 */
export async function compileSchema(schema: unknown): Promise<CompiledSchema> {
  return await (await import("./validate.ts")).compileSchema(schema);
}

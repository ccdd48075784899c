/**
 * `@conduit/mcp/governance`: the client's governance and shaping as functions of their own,
 * for hosts that run them over any tool source.
 *
 * - {@linkcode createGovernance}: the `tools` filter, the policy, hooks, validation and
 *   pinning over any list of tools and any call;
 * - {@linkcode compileFilter}, {@linkcode evaluatePolicy}, {@linkcode compileSchema},
 *   {@linkcode fingerprint} and {@linkcode diffDefinitions}: each stage on its own;
 * - {@linkcode shapeResult}: one tool result as one text for a model, within a budget.
 *
 * A client takes the same settings as options (`tools`, `policy`, `hooks`, `validate`,
 * `pin`, `shape: "llm"`) and loads this code only when one is given; the root entry
 * (`@conduit/mcp`) keeps the types.
 *
 * @example Hide every deleting tool
 * ```ts
 * import { compileFilter } from "./mod.ts";
 *
 * const shown = compileFilter({ deny: ["*_delete"] });
 * const ctx = { assigns: {}, server: "files" };
 * if (shown({ name: "file_delete", inputSchema: {} }, ctx)) throw new Error("should hide");
 * ```
 *
 * @module
 */

export * from "./_exports.ts";
export { DEFAULT_MAX_CHARS, shapeResult } from "./shape.ts";
export type {
  ShapeDefaults,
  ShapedResult,
  ShapeOptions,
  SpillInfo,
  SpillOptions,
  SpillSetting,
} from "./shape.ts";

/**
 * The `tools` filter: which tools a caller sees and may call. Either `{ allow, deny }` lists
 * of names and `*` globs (a tool is shown when `allow` is absent or one of its patterns
 * matches, and no `deny` pattern matches: deny wins), or a function `(tool, ctx) => boolean`
 * that also sees the caller's `principal` and `assigns`.
 *
 * @module
 */

import { checkFilter, patternList } from "./check.ts";
import { anyMatcher, type Matcher, type Pattern } from "./glob.ts";
import type { GovernanceContext, Tool } from "./types.ts";

/** The `tools` option: allow and deny lists, or a function. */
export type ToolFilter =
  | { allow?: Pattern[]; deny?: Pattern[] }
  | ((tool: Tool, ctx: GovernanceContext) => boolean);

/** A checked filter: answers whether a tool is shown to the caller of `ctx`. */
export type CompiledFilter = (tool: Tool, ctx: GovernanceContext) => boolean;

/**
 * Checks and compiles the `tools` option.
 *
 * @param value The option's value.
 * @param key The option's name, for errors (default `"tools"`).
 * @returns The compiled filter.
 * @throws {TypeError} Naming the key when the value is neither a function nor
 *   `{ allow?, deny? }` lists of patterns.
 *
 * @example Hide every deleting tool
 * ```ts
 * import { compileFilter } from "./filter.ts";
 *
 * const shown = compileFilter({ deny: ["*_delete"] });
 * const ctx = { assigns: {}, server: "files" };
 * if (shown({ name: "file_delete", inputSchema: {} }, ctx)) throw new Error("should hide");
 * if (!shown({ name: "file_read", inputSchema: {} }, ctx)) throw new Error("should show");
 * ```
 */
export function compileFilter(value: unknown, key = "tools"): CompiledFilter {
  if (typeof value === "function") {
    const fn = value as (tool: Tool, ctx: GovernanceContext) => unknown;
    // A filter that throws hides the tool: governance fails closed.
    return (tool, ctx) => {
      try {
        return fn(tool, ctx) === true;
      } catch {
        return false;
      }
    };
  }
  checkFilter(value, key);
  const { allow, deny } = value as Record<string, unknown>;
  const allowed: Matcher | undefined = allow === undefined
    ? undefined
    : anyMatcher(patternList(allow, `${key}.allow`));
  const denied: Matcher | undefined = deny === undefined
    ? undefined
    : anyMatcher(patternList(deny, `${key}.deny`));
  return (tool) =>
    (allowed === undefined || allowed(tool.name)) && (denied === undefined || !denied(tool.name));
}

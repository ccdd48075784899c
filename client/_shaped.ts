/**
 * A shaped call (`shape: "llm"`, `maxChars`, `spill`), loaded with the first one: the
 * options are checked, the call made, and its result shaped or spilled. What it needs from
 * `shaping.ts` comes in the {@linkcode ShapingKit} (its type lives in `_shaping_types.ts`), so this module
 * shares no module with what a client loads at start.
 *
 * @module
 */

import type { Task } from "../protocol/tasks.ts";
import { type ShapedResult, shapeResult } from "../governance/shape.ts";
import type { ShapeCallOptions, ToolCallOptions } from "./request_options.ts";
import type { ToolResult } from "./shapes.ts";
import type { ShapingKit } from "./_shaping_types.ts";

/**
 * Runs a shaped call.
 *
 * @param kit The call, the defaults and the checks.
 * @param name The tool.
 * @param args Its arguments.
 * @param options The call's options, shaping's included.
 * @returns The shaped (or spilled) result; the raw one when no shaping key is set.
 * @throws {TypeError} On a shaping option that does not fit.
 *
 * @example A call shaped to a budget
 * ```ts
 * import { shaped } from "./_shaped.ts";
 * import { checkMaxChars } from "../governance/shape_names.ts";
 *
 * const result = await shaped({
 *   call: () =>
 *     Promise.resolve({ content: [{ type: "text", text: "x".repeat(5000) }], isError: false }),
 *   defaults: { maxChars: 8000 },
 *   ownSpill: () => { throw new Error("no spill here"); },
 *   context: undefined,
 *   isStore: (_value: unknown): _value is never => false,
 *   checkMaxChars,
 * }, "echo", {}, { shape: "llm", maxChars: 1000 });
 * if (!("cutChars" in result) || result.cutChars === 0) throw new Error("expected a cut");
 * ```
 */
export async function shaped(
  kit: ShapingKit,
  name: string,
  args: Record<string, unknown> | undefined,
  options: ToolCallOptions & Partial<ShapeCallOptions>,
): Promise<ToolResult | Task | ShapedResult> {
  const { call, defaults, ownSpill, context, isStore, checkMaxChars } = kit;
  const { shape, maxChars, spill: perCall, ...rest } = options;
  if (shape === undefined && maxChars === undefined && perCall === undefined) {
    return await call(name, args, rest);
  }
  if (shape !== "llm") {
    throw new TypeError(
      shape === undefined
        ? `option "${maxChars !== undefined ? "maxChars" : "spill"}" goes with shape: "llm"`
        : 'option "shape" must be "llm"',
    );
  }
  let spill = defaults.spill;
  if (perCall !== undefined) {
    if (perCall !== true && perCall !== false && !isStore(perCall)) {
      throw new TypeError('option "spill" must be true, false or a store');
    }
    if (perCall === false) spill = undefined;
    else if (perCall !== true) spill = { ...(spill ?? ownSpill()), store: perCall };
    else spill ??= ownSpill();
  }
  if (spill !== undefined && context === undefined) {
    throw new TypeError('option "spill" needs a client or hub (use their callTool)');
  }
  if (rest.task === "return") {
    throw new TypeError(
      'option "shape" cannot go with task: "return" (the call may resolve with a task): ' +
        'shape the result of awaitTask() with shapeResult(), or use task: "await"',
    );
  }
  const budget = maxChars === undefined
    ? (context?.budgetOf?.(name) ?? defaults.maxChars)
    : checkMaxChars(maxChars);
  // Without task: "return" the call resolves with a result (a task is awaited to its end).
  const result = await call(name, args, rest);
  if (spill === undefined) {
    return shapeResult(result as ToolResult, { maxChars: budget });
  }
  const { spillResult, spillStoreOf } = await import("./spill.ts");
  context!.used?.(spill);
  const owner = await context!.owner(rest.principal, name);
  return await spillResult(
    result as ToolResult,
    budget,
    spillStoreOf(spill),
    owner,
    spill.ttlMs,
  );
}

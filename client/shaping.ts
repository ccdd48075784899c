/**
 * `callTool`'s `shape: "llm"` — the client's `shape` default (`{ maxChars }`), and the
 * step after the call that hands back a {@linkcode ShapedResult} instead of the raw result. A
 * call without `shape` or `maxChars` goes straight to the call, with nothing added.
 *
 * Shaping is always the last stage, outside governance: a governed client and a governed hub
 * both wrap their governed `callTool` in {@linkcode withShaping}, so the output check and the
 * `afterCall` hooks see the raw result of every call, shaped or not.
 *
 * @module
 */

import type { Task } from "../protocol/tasks.ts";
import { checkKeys } from "../protocol/option_keys.ts";
import {
  checkMaxChars,
  DEFAULT_MAX_CHARS,
  type ShapedResult,
  shapeResult,
} from "../governance/shape.ts";
import { isObject } from "./_json.ts";
import { bad } from "./_option_checks.ts";
import type { ShapeCallOptions, ToolCallOptions } from "./request_options.ts";
import type { ToolResult } from "./shapes.ts";

/** The client's `callTool` before shaping. */
export type RawCallTool = (
  name: string,
  args: Record<string, unknown> | undefined,
  options?: ToolCallOptions,
) => Promise<ToolResult | Task>;

/** `callTool` with shaping: a shaped call resolves with a {@linkcode ShapedResult}. */
export type ShapingCallTool = (
  name: string,
  args: Record<string, unknown> | undefined,
  options?: ToolCallOptions & Partial<ShapeCallOptions>,
) => Promise<ToolResult | Task | ShapedResult>;

/**
 * Checks the client's `shape` option: `{ maxChars? }`, the budget of shaped calls.
 *
 * @param value The option as given.
 * @returns The default `maxChars` of shaped calls.
 * @throws {TypeError} Naming `shape` for anything else.
 */
export function shapeDefaults(value: unknown): number {
  if (value === undefined) return DEFAULT_MAX_CHARS;
  if (!isObject(value)) {
    bad(
      "shape",
      "must be an object such as { maxChars: 8000 } (a call asks for shaping itself: " +
        'callTool(name, args, { shape: "llm" }))',
    );
  }
  checkKeys(value, ["maxChars"], 'the "shape" option');
  return checkMaxChars(value.maxChars, 'createClient: option "shape" has a maxChars that');
}

/**
 * Wraps the client's `callTool` so that `shape: "llm"` shapes the result (`maxChars`, or
 * the client's default). A call with neither key is passed on untouched.
 *
 * @param call The call without shaping.
 * @param maxChars The client's default budget.
 * @returns `callTool` with shaping.
 */
export function withShaping(call: RawCallTool, maxChars: number): ShapingCallTool {
  return (name, args, options) => {
    if (!isObject(options) || (!("shape" in options) && !("maxChars" in options))) {
      return call(name, args, options);
    }
    return shaped(call, maxChars, name, args, options);
  };
}

async function shaped(
  call: RawCallTool,
  fallback: number,
  name: string,
  args: Record<string, unknown> | undefined,
  options: ToolCallOptions & Partial<ShapeCallOptions>,
): Promise<ToolResult | Task | ShapedResult> {
  const { shape, maxChars, ...rest } = options;
  if (shape === undefined && maxChars === undefined) return await call(name, args, rest);
  if (shape !== "llm") {
    throw new TypeError(
      shape === undefined
        ? 'option "maxChars" goes with shape: "llm"'
        : 'option "shape" must be "llm"',
    );
  }
  if (rest.task === "return") {
    throw new TypeError(
      'option "shape" cannot go with task: "return" (the call may resolve with a task): ' +
        'shape the result of awaitTask() with shapeResult(), or use task: "await"',
    );
  }
  const budget = maxChars === undefined ? fallback : checkMaxChars(maxChars);
  // Without task: "return" the call resolves with a result (a task is awaited to its end).
  const result = await call(name, args, rest);
  return shapeResult(result as ToolResult, { maxChars: budget });
}

/**
 * The types of shaping (`shaping.ts` re-exports them): kept apart so the shaped call
 * (`_shaped.ts`, loaded with the first one) and `shaping.ts` name them without importing
 * each other.
 *
 * @module
 */

import type { checkMaxChars } from "../governance/shape_names.ts";
import type { ShapedResult, SpillConfig } from "../governance/shape.ts";
import type { CacheStore } from "../cache/store.ts";
import type { Task } from "../protocol/tasks.ts";
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

/** The checked `shape` option of a client or hub. */
export interface ShapeSettings {
  /** The default budget. */
  maxChars: number;
  /** Where results over budget are kept (absent: they are cut). */
  spill?: SpillConfig;
}

/**
 * What a shaped call is given (`_shaped.ts`): the call, the defaults and `shaping.ts`'
 * checks, handed over rather than imported, so the shaping code shares no module with the
 * start.
 */
export interface ShapingKit {
  /** The call without shaping. */
  call: RawCallTool;
  /** The default budget and spill setting. */
  defaults: ShapeSettings;
  /** A spill setting of its own, for `spill: true` without a default. */
  ownSpill: () => SpillConfig;
  /** Who the caller is, and each tool's budget. */
  context: ShapingContext | undefined;
  /** Whether a value is a store. */
  isStore: (value: unknown) => value is CacheStore;
  /** Checks a budget (`maxChars`). */
  checkMaxChars: typeof checkMaxChars;
}

/** What shaping needs besides the defaults: who the caller is, and each tool's budget. */
export interface ShapingContext {
  /** The owner of results spilled for `principal` (a digest of the caller's identity). */
  owner(principal: string | undefined, name: string): Promise<string>;
  /** A tool's own budget (`_meta["anthropic/maxResultSizeChars"]`), when known. */
  budgetOf?(name: string): number | undefined;
  /** Notes a per-call store, so `readResult` looks in it too. */
  used?(config: SpillConfig): void;
}

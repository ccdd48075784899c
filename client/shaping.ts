/**
 * `callTool`'s `shape: "llm"` — the client's `shape` default (`{ maxChars }`), and the
 * step after the call that hands back a {@linkcode ShapedResult} instead of the raw result. A
 * call without `shape` or `maxChars` goes straight to the call, with nothing added.
 *
 * Shaping is always the last stage, outside governance: a governed client and a governed hub
 * both wrap their governed `callTool` in {@linkcode withShaping}, so the output check and the
 * `afterCall` hooks see the raw result of every call, shaped or not.
 *
 * A client's side of spilling is here too ({@linkcode clientSpill}): who owns what a call
 * spilled (the server, the credentials' identity as the cache names it, and the principal),
 * each tool's own budget, and `readResult`. An identity the cache cannot name (an `auth`
 * function without `credentialId`, a stdio server that inherits the whole environment) is
 * this client's own until its credentials change: a random name, drawn again by `setAuth`.
 * The spill code itself (`spill.ts`, `read_result.ts`) and the shaping code are loaded only
 * when a result is shaped, spilled or read back.
 *
 * @module
 */

import type { Task } from "../protocol/tasks.ts";
import type { CacheTarget } from "../cache/digest.ts";
import { checkKeys } from "../protocol/option_keys.ts";
import { checkMaxChars, DEFAULT_MAX_CHARS, MIN_MAX_CHARS } from "../governance/shape_names.ts";
import type { ShapedResult, SpillConfig } from "../governance/shape.ts";
import type { CacheStore } from "../cache/store.ts";
import { lazyStore } from "../cache/lazy_store.ts";
import { isObject } from "../protocol/json.ts";

export type { SpillConfig } from "../governance/shape.ts";
import type {
  RawCallTool,
  ShapeSettings,
  ShapingCallTool,
  ShapingContext,
  ShapingKit,
} from "./_shaping_types.ts";
export type {
  RawCallTool,
  ShapeSettings,
  ShapingCallTool,
  ShapingContext,
  ShapingKit,
} from "./_shaping_types.ts";
import { bad } from "./_option_checks.ts";
import type { ShapeCallOptions, ToolCallOptions } from "./request_options.ts";
import type { Tool, ToolResult } from "./shapes.ts";
import type { McpClient } from "./api.ts";

/** A tool's own budget: its `_meta["anthropic/maxResultSizeChars"]` (at most 500 000). */
export const MAX_TOOL_BUDGET = 500_000;

function isStore(value: unknown): value is CacheStore {
  return isObject(value) &&
    ["get", "set", "delete", "deletePrefix"].every((m) => typeof value[m] === "function");
}

/** A memory store made on first use for `spill: true` (loaded with the spill code). */
let ownStore: (() => CacheStore) | undefined;

/**
 * Checks a spill setting: `true`, `false`, a store, or `{ store?, ttlMs?, maxBytes? }`.
 *
 * @param value The setting.
 * @param where What it is, for the message.
 * @returns The store and limits, or `undefined` for none.
 * @throws {TypeError} Naming the setting.
 */
export function checkSpill(value: unknown, where: string): SpillConfig | undefined {
  if (value === undefined || value === false) return undefined;
  const defaults = { ttlMs: 60 * 60 * 1000, maxBytes: 64 * 1024 * 1024 };
  if (value === true) return { store: ownSpillStore(), ...defaults };
  if (isStore(value)) return { store: value, ...defaults };
  if (!isObject(value)) {
    throw new TypeError(`${where} must be true, false, a store or { store, ttlMs, maxBytes }`);
  }
  checkKeys(value, ["store", "ttlMs", "maxBytes"], where);
  if (value.store !== undefined && !isStore(value.store)) {
    throw new TypeError(`${where}.store must be a store (get, set, delete, deletePrefix)`);
  }
  for (const key of ["ttlMs", "maxBytes"] as const) {
    const n = value[key];
    if (n !== undefined && !(Number.isSafeInteger(n) && (n as number) > 0)) {
      throw new TypeError(`${where}.${key} must be a positive whole number`);
    }
  }
  return {
    store: (value.store as CacheStore | undefined) ?? ownSpillStore(),
    ttlMs: (value.ttlMs as number | undefined) ?? defaults.ttlMs,
    maxBytes: (value.maxBytes as number | undefined) ?? defaults.maxBytes,
  };
}

/**
 * A store that becomes a memory store of its own (`ownMemoryStore`) on first use, so
 * `spill: true` loads nothing until a result spills.
 */
function ownSpillStore(): CacheStore {
  return lazyStore(
    () =>
      import("./spill.ts").then((m) => {
        ownStore ??= m.ownMemoryStore;
        return ownStore();
      }),
    true,
  );
}

/**
 * Checks the client's `shape` option: `{ maxChars?, spill? }`, the defaults of shaped calls.
 *
 * @param value The option as given.
 * @param where Whose option it is, for the message.
 * @returns The default budget and spill setting of shaped calls.
 * @throws {TypeError} Naming `shape` for anything else.
 */
export function shapeDefaults(value: unknown, where = "createClient"): ShapeSettings {
  if (value === undefined) return { maxChars: DEFAULT_MAX_CHARS };
  if (!isObject(value)) {
    bad(
      "shape",
      "must be an object such as { maxChars: 8000 } (a call asks for shaping itself: " +
        'callTool(name, args, { shape: "llm" }))',
    );
  }
  checkKeys(value, ["maxChars", "spill"], 'the "shape" option');
  const maxChars = checkMaxChars(value.maxChars, `${where}: option "shape" has a maxChars that`);
  const spill = checkSpill(value.spill, `${where}: option "shape.spill"`);
  return spill === undefined ? { maxChars } : { maxChars, spill };
}

/**
 * A tool's own budget from its definition's `_meta["anthropic/maxResultSizeChars"]`: a
 * whole number from {@linkcode MIN_MAX_CHARS} up, at most {@linkcode MAX_TOOL_BUDGET};
 * anything else is ignored.
 *
 * @param meta The tool's `_meta`.
 * @returns The budget, or `undefined`.
 */
export function toolBudget(meta: unknown): number | undefined {
  if (!isObject(meta)) return undefined;
  const value = meta["anthropic/maxResultSizeChars"];
  if (!Number.isSafeInteger(value) || (value as number) < MIN_MAX_CHARS) return undefined;
  return Math.min(value as number, MAX_TOOL_BUDGET);
}

/**
 * Wraps the client's `callTool` so that `shape: "llm"` shapes the result (`maxChars`, else
 * the tool's own budget, else the default), spilling it when spilling is on. A call with
 * none of the shaping keys is passed on untouched.
 *
 * @param call The call without shaping.
 * @param defaults The default budget and spill setting.
 * @param context Who the caller is, and each tool's budget (for spilling).
 * @returns `callTool` with shaping.
 */
export function withShaping(
  call: RawCallTool,
  defaults: ShapeSettings,
  context?: ShapingContext,
): ShapingCallTool {
  // `spill: true` on a call of a client without a spill default: one memory store of its own.
  let own: SpillConfig | undefined;
  const ownSpill = () => own ??= checkSpill(true, "spill")!;
  const kit: ShapingKit = { call, defaults, ownSpill, context, isStore, checkMaxChars };
  return (name, args, options) => {
    if (
      !isObject(options) ||
      (!("shape" in options) && !("maxChars" in options) && !("spill" in options))
    ) {
      return call(name, args, options);
    }
    return shapedLater(kit, name, args, options);
  };
}

/** A shaped call: the code that shapes loads with the first one. */
async function shapedLater(
  kit: ShapingKit,
  name: string,
  args: Record<string, unknown> | undefined,
  options: ToolCallOptions & Partial<ShapeCallOptions>,
): Promise<ToolResult | Task | ShapedResult> {
  return await (await import("./_shaped.ts")).shaped(kit, name, args, options);
}

/** What a client's spilling gives it. */
export interface ClientSpill {
  /** Who the caller is, and each tool's budget. */
  context: ShapingContext;
  /** `readResult`. */
  readResult: McpClient["readResult"];
  /** New credentials: results spilled before are out of reach of the new ones. */
  credentialsChanged(): void;
}

/** The most per-call stores `readResult` looks in besides the client's own. */
const MAX_CALL_STORES = 8;

/**
 * A client's spilling.
 *
 * @param shape The client's `shape` settings.
 * @param transport The transport (it names the server and the credentials).
 * @param tools The last tool listing.
 * @returns The context, `readResult` and the credential hook.
 */
export function clientSpill(
  shape: ShapeSettings,
  transport: { cacheTarget?(): Promise<CacheTarget> },
  tools: () => Tool[],
): ClientSpill {
  // Drawn with the first spill: a client that never spills never starts the random source
  // (under Bun its first use costs about 0.6 MB).
  let unnamed: string | undefined;
  const owner = async (principal: string | undefined) => {
    const { spillOwner, spillTarget } = await import("./spill.ts");
    const target = await spillTarget(transport);
    return spillOwner(target, unnamed ??= crypto.randomUUID(), principal);
  };
  const perCall: SpillConfig[] = [];
  return {
    context: {
      owner: (principal) => owner(principal),
      budgetOf(name) {
        try {
          return toolBudget(tools().find((tool) => tool.name === name)?._meta);
        } catch {
          return undefined; // no listing yet
        }
      },
      used(config) {
        if (config === shape.spill || perCall.includes(config)) return;
        if (perCall.some((c) => c.store === config.store)) return;
        perCall.push(config);
        if (perCall.length > MAX_CALL_STORES) perCall.shift();
      },
    },
    readResult: async (handle, options) =>
      await (await import("./read_result.ts")).readKept(
        handle,
        options,
        [...(shape.spill === undefined ? [] : [shape.spill]), ...perCall],
        owner,
      ),
    credentialsChanged() {
      unnamed = undefined; // a new one with the next spill
    },
  };
}

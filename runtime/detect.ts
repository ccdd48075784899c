/**
 * Which JavaScript runtime the library runs in.
 *
 * @module
 */

/** A runtime the library knows how to spawn processes in, or `"other"`. */
export type RuntimeName = "deno" | "bun" | "other";

/**
 * Names the current runtime. Bun is checked first: it is never mistaken for Deno, while
 * some compatibility layers define a `Deno` global elsewhere.
 *
 * @returns `"deno"`, `"bun"` or `"other"` (Node, a browser, an edge worker).
 *
 * @example
 * ```ts
 * import { runtimeName } from "./detect.ts";
 *
 * const name = runtimeName();
 * if (!["deno", "bun", "other"].includes(name)) throw new Error("unexpected");
 * ```
 */
export function runtimeName(): RuntimeName {
  const g = globalThis as { Bun?: { version?: unknown }; Deno?: { version?: { deno?: unknown } } };
  if (typeof g.Bun === "object" && g.Bun !== null && typeof g.Bun.version === "string") {
    return "bun";
  }
  if (typeof g.Deno === "object" && g.Deno !== null && typeof g.Deno.version?.deno === "string") {
    return "deno";
  }
  return "other";
}

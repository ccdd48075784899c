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

/**
 * Whether a large `fetch` body is best read with a BYOB reader into one buffer (Deno: its
 * bodies are byte streams, and reading them whole leaves every chunk to the collector),
 * rather than whole with `arrayBuffer()` (Bun: its bodies are not byte streams, and even
 * looking at a body's stream takes `arrayBuffer()` off its native path).
 *
 * @returns `true` under Deno.
 *
 * @example
 * ```ts
 * import { readsBodiesIntoBuffers } from "./detect.ts";
 *
 * if (typeof readsBodiesIntoBuffers() !== "boolean") throw new Error("unexpected");
 * ```
 */
export function readsBodiesIntoBuffers(): boolean {
  return runtimeName() === "deno";
}

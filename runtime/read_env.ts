/**
 * Reads one of this process's environment variables, under Deno or Bun (for expanding
 * `${env:NAME}` in config files). A variable Deno's permissions hide counts as unset.
 *
 * @module
 */

import { bunReadEnv } from "./bun.ts";
import { denoReadEnv } from "./deno.ts";
import { runtimeName } from "./detect.ts";

/**
 * The value of an environment variable of this process.
 *
 * @param name The variable's name.
 * @returns Its value, or `undefined` when it is not set (or not readable, or outside Deno
 *   and Bun).
 *
 * @example
 * ```ts
 * import { readEnv } from "./read_env.ts";
 *
 * const path = readEnv("PATH");
 * if (path !== undefined && typeof path !== "string") throw new Error("unexpected");
 * ```
 */
export function readEnv(name: string): string | undefined {
  const runtime = runtimeName();
  if (runtime === "other") return undefined;
  return (runtime === "deno" ? denoReadEnv : bunReadEnv)([name])[name];
}

/**
 * The environment of a child process, built on purpose rather than inherited wholesale: by
 * default it gets a short list of harmless variables from the parent
 * ({@linkcode SAFE_ENV_NAMES}: `PATH`, `HOME`, the locale…) plus what you pass in `env`, so
 * an API key in your shell does not leak into every server you start. Ask for
 * `inheritEnv: "all"` to pass the whole parent environment.
 *
 * @module
 */

/**
 * Which of the parent's environment variables a child process sees, before `env` is
 * merged over them:
 *
 * - `"safe"` (default): only {@linkcode SAFE_ENV_NAMES} (those that are set);
 * - `"all"`: the whole parent environment;
 * - `"none"`: nothing (give an absolute `command`, or `PATH` in `env`);
 * - a list of names: exactly those variables (spread `SAFE_ENV_NAMES` into it to extend
 *   the default).
 *
 * @example Pass the whole environment to a trusted server
 * ```ts
 * import type { InheritEnv } from "./env.ts";
 *
 * const inheritEnv: InheritEnv = "all";
 * ```
 */
export type InheritEnv = "safe" | "all" | "none" | readonly string[];

/**
 * The variables a child inherits by default: what shells, package runners (`npx`, `uvx`,
 * `bunx`) and language runtimes need to start, and nothing that usually holds a secret.
 *
 * @example Extend the default list
 * ```ts
 * import { SAFE_ENV_NAMES } from "./env.ts";
 *
 * const inheritEnv = [...SAFE_ENV_NAMES, "HTTPS_PROXY", "NO_PROXY"];
 * if (!inheritEnv.includes("PATH")) throw new Error("PATH is inherited by default");
 * ```
 */
export const SAFE_ENV_NAMES: readonly string[] = Object.freeze([
  // POSIX
  "HOME",
  "LOGNAME",
  "PATH",
  "SHELL",
  "TERM",
  "USER",
  "TMPDIR",
  "LANG",
  "LC_ALL",
  "LC_CTYPE",
  "TZ",
  // Windows
  "APPDATA",
  "COMSPEC",
  "HOMEDRIVE",
  "HOMEPATH",
  "LOCALAPPDATA",
  "PATHEXT",
  "PROCESSOR_ARCHITECTURE",
  "PROGRAMFILES",
  "SYSTEMDRIVE",
  "SYSTEMROOT",
  "TEMP",
  "TMP",
  "USERNAME",
  "USERPROFILE",
  "WINDIR",
]);

/**
 * Builds a child's environment: the inherited variables, then `env` over them. Pure; the
 * parent's variables come from `readParent`.
 *
 * @param inherit Which parent variables to keep.
 * @param env Variables that win over inherited ones.
 * @param readParent Reads the named parent variables, or all of them for `"all"`.
 * @returns The complete environment.
 *
 * @example
 * ```ts
 * import { childEnv } from "./env.ts";
 *
 * const parent: Record<string, string> = { PATH: "/bin", API_KEY: "secret" };
 * const read = (names: readonly string[] | "all") =>
 *   names === "all" ? parent : Object.fromEntries(names.filter((n) => n in parent).map((n) => [n, parent[n]]));
 * const env = childEnv("safe", { DEBUG: "1" }, read);
 * if (env.API_KEY !== undefined || env.PATH !== "/bin" || env.DEBUG !== "1") throw new Error();
 * ```
 */
export function childEnv(
  inherit: InheritEnv,
  env: Readonly<Record<string, string>> | undefined,
  readParent: (names: readonly string[] | "all") => Record<string, string>,
): Record<string, string> {
  if (
    !Array.isArray(inherit) && inherit !== "safe" && inherit !== "all" && inherit !== "none"
  ) {
    throw new TypeError('inheritEnv must be "safe", "all", "none" or a list of names');
  }
  let base: Record<string, string>;
  if (inherit === "none") base = {};
  else if (inherit === "all") base = readParent("all");
  else base = readParent(inherit === "safe" ? SAFE_ENV_NAMES : inherit);
  const result: Record<string, string> = {};
  for (const [name, value] of Object.entries(base)) {
    // Exported shell functions ("() { …") are no use to a server and can confuse shells.
    if (typeof value === "string" && !value.startsWith("()")) result[name] = value;
  }
  for (const [name, value] of Object.entries(env ?? {})) {
    if (typeof value !== "string") {
      throw new TypeError(`env.${name} must be a string`);
    }
    result[name] = value;
  }
  return result;
}

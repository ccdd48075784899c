/**
 * The `sandbox` option of a stdio server, and its check: what the server may read, write,
 * reach and run, and which variables it sees. Small and synchronous, so the stdio transport
 * checks it when it is created; the launcher itself (`launch.ts`) loads only when a sandboxed
 * server starts.
 *
 * @module
 */

import { checkKeys } from "../protocol/option_keys.ts";

/**
 * What a sandboxed stdio server may do. Every list defaults to none: `{}` is a server that
 * reads and writes none of your files, reaches no network, sees only the variables given to
 * it in `env` and starts no process.
 *
 * @example A server that reads one project and writes its `out` folder
 * ```ts
 * import type { SandboxOptions } from "./profile.ts";
 *
 * const sandbox: SandboxOptions = {
 *   read: ["/home/me/project"],
 *   write: ["/home/me/project/out"],
 *   net: ["api.example.com:443"],
 *   env: ["LANG"],
 *   required: true,
 * };
 * ```
 */
export interface SandboxOptions {
  /** Absolute paths the server may read (folders with everything in them). */
  read?: readonly string[];
  /** Absolute paths the server may read and write. */
  write?: readonly string[];
  /**
   * Hosts (`host` or `host:port`) the server may reach. Deno enforces the list; under
   * bubblewrap any host means the whole network (bubblewrap cannot filter by host).
   */
  net?: readonly string[];
  /** Names of this process's variables the server sees (besides the `env` given to it). */
  env?: readonly string[];
  /**
   * Programs the server may start. Deno enforces the list; under bubblewrap any entry lets
   * the server start any program the sandbox can see, and none stops it starting processes.
   */
  run?: readonly string[];
  /**
   * Refuse to start the server when no sandbox applies (reason `sandbox_unavailable`)
   * instead of starting it unsandboxed with a warning. Default `false`.
   */
  required?: boolean;
}

/**
 * How a server process is contained: by Deno's permissions, by bubblewrap, or not at all.
 *
 * @example
 * ```ts
 * import type { Containment } from "./profile.ts";
 *
 * const contained = (c: Containment) => c !== "none";
 * if (!contained("bwrap")) throw new Error("unexpected");
 * ```
 */
export type Containment = "deno-permissions" | "bwrap" | "none";

/** A checked profile: every list present (frozen), `required` a boolean. */
export interface SandboxProfile {
  /** Paths to read. */
  readonly read: readonly string[];
  /** Paths to read and write. */
  readonly write: readonly string[];
  /** Hosts to reach. */
  readonly net: readonly string[];
  /** Variables to see. */
  readonly env: readonly string[];
  /** Programs to start. */
  readonly run: readonly string[];
  /** Refuse rather than run unsandboxed. */
  readonly required: boolean;
}

const LISTS = ["read", "write", "net", "env", "run"] as const;
const KEYS = [...LISTS, "required"];

function isAbsolute(path: string): boolean {
  return path.startsWith("/") || /^[A-Za-z]:[\\/]/.test(path) || path.startsWith("\\\\");
}

/**
 * Checks a `sandbox` option.
 *
 * @param value The option.
 * @param where Its place, for errors (e.g. `"stdio options.sandbox"`).
 * @returns The checked profile.
 * @throws {TypeError} Naming the bad member: an unknown key, a list that is not of non-empty
 *   strings, a relative path, a comma in an entry (Deno's lists are comma-separated), or a
 *   `required` that is not a boolean.
 *
 * @example
 * ```ts
 * import { checkSandbox } from "./profile.ts";
 *
 * const profile = checkSandbox({ read: ["/srv/data"] }, "sandbox");
 * if (profile.write.length !== 0 || profile.required) throw new Error("unexpected");
 * let refused = false;
 * try {
 *   checkSandbox({ read: ["data"] }, "sandbox");
 * } catch (error) {
 *   refused = error instanceof TypeError;
 * }
 * if (!refused) throw new Error("a relative path is refused");
 * ```
 */
export function checkSandbox(value: unknown, where: string): SandboxProfile {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new TypeError(`${where} must be an object`);
  }
  checkKeys(value, KEYS, where);
  const given = value as Record<string, unknown>;
  const lists = {} as Record<(typeof LISTS)[number], readonly string[]>;
  for (const key of LISTS) {
    const list = given[key] ?? [];
    if (!Array.isArray(list)) throw new TypeError(`${where}.${key} must be an array of strings`);
    for (const [i, item] of list.entries()) {
      if (typeof item !== "string" || item === "" || item.includes("\0")) {
        throw new TypeError(`${where}.${key}[${i}] must be a non-empty string`);
      }
      if (item.includes(",")) {
        throw new TypeError(`${where}.${key}[${i}] must not contain a comma`);
      }
      if ((key === "read" || key === "write") && !isAbsolute(item)) {
        throw new TypeError(`${where}.${key}[${i}] must be an absolute path`);
      }
      if (key === "env" && !/^[A-Za-z_][A-Za-z0-9_]*$/.test(item)) {
        throw new TypeError(`${where}.${key}[${i}] must be a variable name`);
      }
    }
    lists[key] = Object.freeze([...list]);
  }
  if (given.required !== undefined && typeof given.required !== "boolean") {
    throw new TypeError(`${where}.required must be true or false`);
  }
  return Object.freeze({ ...lists, required: given.required === true });
}

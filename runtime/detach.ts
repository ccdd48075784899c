/**
 * Starts this runtime on another script as a background process that outlives this one: a
 * session of its own (detached), no terminal, standard output and error discarded, only
 * standard input piped (to hand it its settings without putting them on the command
 * line, where `ps` shows them). Under Deno it gets only the permissions this process holds
 * (`--allow-X` for each granted whole, and for the rest the names it is told it needs,
 * where this process holds them).
 *
 * @module
 */

import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { runtimeName } from "./detect.ts";

/** What the background process needs permission for (read under Deno only). */
export interface DetachedNeeds {
  /** Paths it reads. */
  read?: readonly string[];
  /** Paths it writes. */
  write?: readonly string[];
  /** Hosts it connects to (`host` or `host:port`). */
  net?: readonly string[];
  /** Commands it runs. */
  run?: readonly string[];
  /** Variables it reads. */
  env?: readonly string[];
}

/** A background process from {@linkcode startDetached}. */
export interface DetachedProcess {
  /** Its process id. */
  readonly pid: number;
  /** Settles with its exit code (`null` when a signal ended it) if it ends while watched. */
  readonly exited: Promise<number | null>;
  /** Stops watching it, so this process may end while it runs on. */
  release(): void;
}

interface PermissionsLike {
  querySync(descriptor: Record<string, string>): { state: string };
}

const KINDS = ["read", "write", "net", "env", "run", "sys", "ffi"] as const;
const KEY: Record<string, string> = {
  read: "path",
  write: "path",
  net: "host",
  env: "variable",
  run: "command",
};

/**
 * Deno's permission flags for the child: those this process holds whole, and for the rest
 * each needed name this process holds.
 */
export function denoPermissionFlags(
  needs: DetachedNeeds,
  permissions: PermissionsLike,
): string[] {
  const flags: string[] = [];
  const granted = (descriptor: Record<string, string>) => {
    try {
      return permissions.querySync(descriptor).state === "granted";
    } catch {
      return false;
    }
  };
  for (const name of KINDS) {
    if (granted({ name })) {
      flags.push(`--allow-${name}`);
      continue;
    }
    const wanted = (needs as Record<string, readonly string[] | undefined>)[name] ?? [];
    const held = wanted.filter((value) => granted({ name, [KEY[name]]: value }));
    if (held.length > 0) flags.push(`--allow-${name}=${held.join(",")}`);
  }
  return flags;
}

/**
 * Starts `script` under this runtime in the background, writes `input` to its standard
 * input and closes it.
 *
 * @param script The module to run: a path, or a URL (a `file:` URL is run by its path).
 * @param input What to write to its standard input.
 * @param options Its working folder, and what it needs permission for (Deno).
 * @returns The process.
 * @throws {TypeError} Outside Deno and Bun.
 *
 * @example
 * ```ts ignore
 * import { startDetached } from "./detach.ts";
 *
 * const child = startDetached(new URL("./worker.ts", import.meta.url), "{}\n");
 * child.release(); // it runs on after this process ends
 * ```
 */
export function startDetached(
  script: string | URL,
  input: string,
  options: { cwd?: string; needs?: DetachedNeeds } = {},
): DetachedProcess {
  const runtime = runtimeName();
  if (runtime === "other") throw new TypeError("a background process needs Deno or Bun");
  // A local module by its path; a remote one (a package run from its registry) by its URL,
  // which Deno runs as it is.
  const url = script instanceof URL ? script : URL.canParse(script) ? new URL(script) : undefined;
  const path = url === undefined
    ? String(script)
    : url.protocol === "file:"
    ? fileURLToPath(url)
    : url.href;
  const g = globalThis as unknown as {
    Deno?: { execPath(): string; permissions: PermissionsLike };
    process: { execPath: string };
  };
  const [command, args] = runtime === "deno"
    ? [g.Deno!.execPath(), [
      "run",
      "--no-prompt",
      ...denoPermissionFlags(options.needs ?? {}, g.Deno!.permissions),
      path,
    ]]
    : [g.process.execPath, [path]];
  const child = spawn(command, args, {
    cwd: options.cwd,
    detached: true,
    stdio: ["pipe", "ignore", "ignore"],
  });
  const exited = new Promise<number | null>((resolve) => {
    child.once("exit", (code) => resolve(code));
    child.once("error", () => resolve(null));
  });
  child.stdin!.on("error", () => {});
  child.stdin!.end(input);
  return {
    pid: child.pid ?? -1,
    exited,
    release() {
      child.unref();
    },
  };
}

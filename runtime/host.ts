/**
 * Facts about this machine a launcher needs: the platform and architecture, the running
 * `deno` (when this is Deno) and executables found in `PATH`.
 *
 * @module
 */

import { runtimeName } from "./detect.ts";
import { readEnv } from "./read_env.ts";

interface DenoHost {
  build: { os: string; arch: string };
  execPath(): string;
  statSync(path: string): { isFile: boolean; mode: number | null };
}

interface BunHost {
  which(name: string, options?: { PATH?: string }): string | null;
}

interface ProcessHost {
  platform: string;
  arch: string;
}

const g = globalThis as unknown as { Deno?: DenoHost; Bun?: BunHost; process?: ProcessHost };

/**
 * This machine's platform and architecture, as Node names them (`linux`, `darwin`, `win32`;
 * `x64`, `arm64`), or `"unknown"` outside Deno and Bun.
 *
 * @returns `{ platform, arch }`.
 *
 * @example
 * ```ts
 * import { hostPlatform } from "./host.ts";
 *
 * const { platform } = hostPlatform();
 * console.log(platform); // e.g. "linux"
 * ```
 */
export function hostPlatform(): { platform: string; arch: string } {
  const runtime = runtimeName();
  if (runtime === "deno") {
    const { os, arch } = g.Deno!.build;
    return {
      platform: os === "windows" ? "win32" : os,
      arch: arch === "x86_64" ? "x64" : arch === "aarch64" ? "arm64" : arch,
    };
  }
  if (runtime === "bun" && g.process) return { platform: g.process.platform, arch: g.process.arch };
  return { platform: "unknown", arch: "unknown" };
}

/**
 * The `deno` executable running this process, when this is Deno.
 *
 * @returns Its path, or `undefined`.
 *
 * @example
 * ```ts
 * import { runningDeno } from "./host.ts";
 *
 * console.log(runningDeno() ?? "not Deno");
 * ```
 */
export function runningDeno(): string | undefined {
  if (runtimeName() !== "deno") return undefined;
  try {
    return g.Deno!.execPath();
  } catch {
    return undefined; // no permission to know it
  }
}

/**
 * Finds an executable in this process's `PATH` (absolute, or `undefined` when it is not
 * there or may not be looked for).
 *
 * @param name The executable's name.
 * @returns Its path, or `undefined`.
 *
 * @example
 * ```ts
 * import { findExecutable } from "./host.ts";
 *
 * console.log(findExecutable("sh") ?? "no sh");
 * ```
 */
export function findExecutable(name: string): string | undefined {
  const runtime = runtimeName();
  let path: string | undefined;
  try {
    path = readEnv("PATH");
  } catch {
    return undefined;
  }
  if (path === undefined) return undefined;
  if (runtime === "bun") return g.Bun!.which(name, { PATH: path }) ?? undefined;
  if (runtime !== "deno") return undefined;
  const windows = g.Deno!.build.os === "windows";
  for (const dir of path.split(windows ? ";" : ":")) {
    if (dir === "" || !dir.startsWith("/") && !windows) continue;
    const candidate = `${dir}${windows ? "\\" : "/"}${name}${windows ? ".exe" : ""}`;
    try {
      const stat = g.Deno!.statSync(candidate);
      if (stat.isFile && (windows || ((stat.mode ?? 0) & 0o111) !== 0)) return candidate;
    } catch {
      // Not there, or not ours to see.
    }
  }
  return undefined;
}

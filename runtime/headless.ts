/**
 * Whether a browser can be opened for a user's login here: not without a display on Linux
 * (`DISPLAY`, `WAYLAND_DISPLAY`), not in an SSH session (`SSH_CONNECTION`, `SSH_TTY`), not
 * in CI (`CI`), and not where no HTTP server can be served for the loopback callback.
 *
 * @module
 */

import { readEnv } from "./read_env.ts";
import { runtimeName } from "./detect.ts";
import { bunPlatform } from "./bun.ts";
import { denoPlatform } from "./deno.ts";

/**
 * Why no browser can be used for a login here, or `undefined` when one can.
 *
 * @param env Reads an environment variable (default: this process's).
 * @param platform The operating system (default: this process's, e.g. `"linux"`).
 * @returns A short reason (`"no display"`, `"SSH session"`, `"CI"`, `"no HTTP server"`).
 *
 * @example
 * ```ts
 * import { browserUnavailable } from "./headless.ts";
 *
 * const env: Record<string, string> = { SSH_CONNECTION: "10.0.0.1 22 10.0.0.2 22" };
 * if (browserUnavailable((name) => env[name], "darwin") !== "SSH session") throw new Error();
 * if (browserUnavailable(() => undefined, "darwin") !== undefined) throw new Error();
 * if (browserUnavailable(() => undefined, "linux") !== "no display") throw new Error();
 * ```
 */
export function browserUnavailable(
  env: (name: string) => string | undefined = readEnv,
  platform: string = currentPlatform(),
): string | undefined {
  const set = (name: string) => {
    const value = env(name);
    return value !== undefined && value !== "";
  };
  if (set("CI") && env("CI") !== "false" && env("CI") !== "0") return "CI";
  if (set("SSH_CONNECTION") || set("SSH_TTY")) return "SSH session";
  if (platform === "linux" && !set("DISPLAY") && !set("WAYLAND_DISPLAY")) return "no display";
  if (runtimeName() === "other") return "no HTTP server";
  return undefined;
}

function currentPlatform(): string {
  const runtime = runtimeName();
  return runtime === "deno" ? denoPlatform() : runtime === "bun" ? bunPlatform() : "other";
}

/**
 * The system's URL opener: the browser for a login page (`login`) or a server's link (the
 * elicitation form's URL mode).
 *
 * @module
 */

import process from "node:process";
import { spawnProcess } from "../mod.ts";
import type { Terminal } from "./terminal.ts";

/**
 * The argument vector that opens `url` in the browser on `platform`.
 *
 * @example
 * ```ts
 * import { browserCommand } from "./_browser.ts";
 *
 * const argv = browserCommand("darwin", new URL("https://a.example/x?a=1&b=2"));
 * if (argv.join(" ") !== "open https://a.example/x?a=1&b=2") throw new Error();
 * ```
 */
export function browserCommand(platform: string, url: URL): string[] {
  const [command, ...args] = platform === "darwin"
    ? ["open"]
    : platform === "win32"
    ? ["rundll32", "url.dll,FileProtocolHandler"]
    : ["xdg-open"];
  return [command, ...args, url.href];
}

/** Tries the system's URL opener; never throws. */
export function openBrowser(url: URL, term: Terminal): void {
  if (process.platform === "linux" && !term.env("DISPLAY") && !term.env("WAYLAND_DISPLAY")) return;
  const [command, ...args] = browserCommand(process.platform, url);
  try {
    const child = spawnProcess({ command, args });
    child.stdout.cancel().catch(() => {});
    child.stderr.cancel().catch(() => {});
    child.stdin.close().catch(() => {});
  } catch {
    // No opener: the printed URL is enough.
  }
}

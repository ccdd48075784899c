/**
 * Where kept sessions live: the `sessions` folder of the CLI's config folder (made `0700`,
 * refused when another user owns it), one socket a session, named by a digest of the
 * server it reaches (so no text of the user or the server is ever part of a path).
 *
 * @module
 */

import { chmod, mkdir, stat } from "node:fs/promises";
import { join } from "node:path";
import process from "node:process";
import type { ServerSpec } from "./_session.ts";

/** The folder of the kept sessions' sockets under the config folder `configDir`. */
export function sessionsDir(configDir: string): string {
  return join(configDir, "sessions");
}

/**
 * What names a server for a kept session: its URL, or its command, arguments, environment
 * and working folder (the current one when the entry names none), its headers and profile,
 * and the protocol asked for. Two command lines that reach the same server the same way
 * share a session, whether by config name or spelled out.
 */
export function sessionIdentity(
  spec: ServerSpec,
  protocol: string | undefined,
  cwd: string,
): string {
  return JSON.stringify({
    url: spec.url?.href,
    command: spec.command === undefined ? undefined : {
      command: spec.command.command,
      args: spec.command.args,
      env: spec.command.env ?? {},
      cwd: spec.command.cwd ?? cwd,
    },
    headers: Object.entries(spec.headers).sort(([a], [b]) => a < b ? -1 : a > b ? 1 : 0),
    profile: spec.profile,
    protocol: protocol ?? "auto",
  });
}

/**
 * The socket file of a session: 24 hex digits of the SHA-256 of its identity, `.sock`.
 *
 * @example
 * ```ts
 * import { socketName } from "./_keep_paths.ts";
 *
 * const name = await socketName('{"url":"http://127.0.0.1:3000/mcp"}');
 * if (!/^[0-9a-f]{24}\.sock$/.test(name)) throw new Error("unexpected");
 * ```
 */
export async function socketName(identity: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(identity));
  const hex = [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
  return `${hex.slice(0, 24)}.sock`;
}

/** Whether a file name is a session socket's (and nothing else in the folder is looked at). */
export function isSocketName(name: string): boolean {
  return /^[0-9a-f]{24}\.sock$/.test(name);
}

/**
 * Makes the sessions folder owner-only (`0700`), or checks that it is: one another user owns
 * is refused; one of ours with wider modes is narrowed.
 *
 * @throws {Error} When another user owns the folder.
 */
export async function privateDir(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const info = await stat(dir);
  const uid = process.getuid?.();
  if (uid !== undefined && info.uid !== uid) {
    throw new Error(`${dir} belongs to another user: kept sessions need a folder of your own`);
  }
  if ((info.mode & 0o077) !== 0) await chmod(dir, 0o700);
}

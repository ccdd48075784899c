/**
 * bubblewrap's side of the sandbox, pure: the `bwrap` command line for a profile.
 *
 * The server sees the system read-only (`/usr`, `/bin`, `/sbin`, the `/lib*` folders and
 * a short list of `/etc` files: the loader's cache, users and groups, time zone, TLS
 * certificates, name service), the `read` paths read-only, the `write` paths writable, and
 * a private `/tmp`, `/proc` and `/dev`. Everything else (your home folder, other projects,
 * `/run`, `/var`) is not there. It gets new user, IPC, PID, UTS and cgroup namespaces, and a
 * network namespace of its own (no network, its own loopback) unless `net` names a host:
 * then it shares this machine's network, whole. Without `run` a seccomp filter stops it
 * starting processes. `--die-with-parent` ends it with this process, `--new-session` keeps
 * it off this terminal.
 *
 * @module
 */

import type { SandboxProfile } from "./profile.ts";

/** The system paths bound read-only (those that exist). */
export const SYSTEM_PATHS: readonly string[] = Object.freeze([
  "/usr",
  "/bin",
  "/sbin",
  "/lib",
  "/lib32",
  "/lib64",
  "/libx32",
  "/etc/alternatives",
  "/etc/ld.so.cache",
  "/etc/ld.so.conf",
  "/etc/ld.so.conf.d",
  "/etc/localtime",
  "/etc/passwd",
  "/etc/group",
  "/etc/nsswitch.conf",
  "/etc/ssl",
  "/etc/ca-certificates",
  "/etc/pki",
]);

/** The `/etc` files name resolution needs, bound when the server may reach the network. */
export const NETWORK_PATHS: readonly string[] = Object.freeze([
  "/etc/resolv.conf",
  "/etc/hosts",
  "/etc/host.conf",
  "/etc/gai.conf",
]);

/** The descriptor bwrap reads the seccomp filter from. */
export const SECCOMP_FD = 3;

/**
 * The arguments of `bwrap` (after the executable) that run `command` under `profile`.
 *
 * @param profile The profile.
 * @param command The server's command (looked up in the sandbox's `PATH`).
 * @param args Its arguments.
 * @param options `cwd`: the folder to start in (it must be visible: under `read` or
 *   `write`); `seccomp`: read a filter from descriptor 3 (see `seccomp.ts`).
 * @returns The arguments.
 *
 * @example
 * ```ts
 * import { bwrapArgs } from "./bwrap_args.ts";
 * import { checkSandbox } from "./profile.ts";
 *
 * const args = bwrapArgs(checkSandbox({ read: ["/srv"] }, "sandbox"), "node", ["/srv/server.js"], {});
 * if (args.includes("--share-net") || args.at(-2) !== "node") throw new Error("unexpected");
 * ```
 */
export function bwrapArgs(
  profile: SandboxProfile,
  command: string,
  args: readonly string[],
  options: { cwd?: string; seccomp?: boolean },
): string[] {
  const out: string[] = [];
  const network = profile.net.length > 0;
  for (const path of [...SYSTEM_PATHS, ...network ? NETWORK_PATHS : []]) {
    out.push("--ro-bind-try", path, path);
  }
  out.push("--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp");
  for (const path of profile.read) out.push("--ro-bind", path, path);
  for (const path of profile.write) out.push("--bind", path, path);
  out.push("--unshare-all");
  if (network) out.push("--share-net");
  out.push("--die-with-parent", "--new-session");
  if (options.cwd !== undefined) out.push("--chdir", options.cwd);
  if (options.seccomp) out.push("--seccomp", String(SECCOMP_FD));
  out.push("--", command, ...args);
  return out;
}

/**
 * Which sandbox a server gets, and the exact command line, pure: from the profile, the
 * command and the facts of this machine (`HostFacts`).
 *
 * 1. A command Deno can run (see `deno_args.ts`), with a `deno` at hand: Deno's permissions.
 * 2. Otherwise, on Linux with `bwrap` installed: bubblewrap (see `bwrap_args.ts`).
 * 3. Otherwise none: refused under `required`, else run unsandboxed with a warning.
 *
 * Package runners (`npx`, `bunx`, `pnpm dlx`) go to bubblewrap: Deno's `npm:` resolution
 * does not pick the copy and the bin they pick, so the server would not be the same.
 *
 * @module
 */

import { SAFE_ENV_NAMES } from "../runtime/env.ts";
import { bwrapArgs } from "./bwrap_args.ts";
import { denoForm, denoRunArgs } from "./deno_args.ts";
import type { Containment, SandboxProfile } from "./profile.ts";
import { noSpawnFilter, printfBytes, type SeccompArch } from "./seccomp.ts";

/** What the plan needs to know about this machine. */
export interface HostFacts {
  /** The platform, as `process.platform` names it (`linux`, `darwin`, `win32`…). */
  platform: string;
  /** The architecture, as `process.arch` names it (`x64`, `arm64`…). */
  arch: string;
  /** A `deno` executable, when one is at hand. */
  deno?: string;
  /** The `bwrap` executable, when installed. */
  bwrap?: string;
}

/** The server as the stdio options describe it. */
export interface ServerCommand {
  /** The command. */
  command: string;
  /** Its arguments. */
  args: readonly string[];
  /** The variables given to it. */
  env?: Readonly<Record<string, string>>;
  /** Its working directory. */
  cwd?: string;
}

/** How to spawn the sandboxed server (the runtime's spawn options). */
export interface PlannedSpawn {
  /** The executable. */
  command: string;
  /** Its arguments. */
  args: string[];
  /** The names of this process's variables the process inherits. */
  inheritEnv: string[];
  /** Variables set over them. */
  env: Record<string, string>;
  /** The working directory. */
  cwd?: string;
}

/** The plan: the containment, the spawn, and what to warn about. */
export interface SandboxPlan {
  /** How the server will be contained. */
  containment: Containment;
  /** The spawn; absent when the sandbox is required and none applies. */
  spawn?: PlannedSpawn;
  /** Why no sandbox applies (containment `none`). */
  unavailable?: string;
  /** What the caller should be warned of. */
  warnings: string[];
}

/** The variables `deno` itself may need to start (its cache, the npm registry, proxies). */
const DENO_LAUNCH_ENV = [
  ...SAFE_ENV_NAMES,
  "DENO_DIR",
  "XDG_CACHE_HOME",
  "NPM_CONFIG_REGISTRY",
  "DENO_CERT",
  "HTTP_PROXY",
  "HTTPS_PROXY",
  "NO_PROXY",
];

/** The shell step that hands bwrap the seccomp filter on descriptor 3 (no file is left). */
const HAND_FILTER = 'set -e; f=$(mktemp); printf "$0" > "$f"; exec 3< "$f"; rm -f "$f"; exec "$@"';

const SECCOMP_ARCHES = new Set<string>(["x64", "arm64"]);

function unique(names: readonly string[]): string[] {
  return [...new Set(names)];
}

/** Why nothing applies on this platform, for a command Deno cannot run. */
function noSandbox(host: HostFacts, denoCould: boolean): string {
  const deno = denoCould
    ? "no deno executable was found, and "
    : "the command is not one Deno runs, and ";
  if (host.platform === "linux") return `${deno}bwrap is not installed (Debian package bubblewrap)`;
  if (host.platform === "darwin") {
    return `${deno}macOS sandboxing (sandbox-exec) is not supported yet`;
  }
  if (host.platform === "win32") return `${deno}Windows sandboxing is not supported yet`;
  return `${deno}no sandbox is known on ${host.platform}`;
}

/**
 * Plans a sandboxed start.
 *
 * @param profile The checked profile.
 * @param server The command, arguments, variables and folder.
 * @param host This machine's facts.
 * @returns The plan.
 *
 * @example
 * ```ts
 * import { checkSandbox } from "./profile.ts";
 * import { planSandbox } from "./plan.ts";
 *
 * const profile = checkSandbox({ net: ["127.0.0.1:9000"] }, "sandbox");
 * const host = { platform: "linux", arch: "x64", deno: "/usr/bin/deno", bwrap: "/usr/bin/bwrap" };
 * const deno = planSandbox(profile, { command: "server.ts", args: [] }, host);
 * const python = planSandbox(profile, { command: "python3", args: ["server.py"] }, host);
 * if (deno.containment !== "deno-permissions" || python.containment !== "bwrap") {
 *   throw new Error("unexpected");
 * }
 * const mac = planSandbox(profile, { command: "python3", args: [] }, { platform: "darwin", arch: "arm64" });
 * if (mac.containment !== "none" || !mac.unavailable?.includes("sandbox-exec")) throw new Error();
 * ```
 */
export function planSandbox(
  profile: SandboxProfile,
  server: ServerCommand,
  host: HostFacts,
): SandboxPlan {
  const given = server.env ?? {};
  const form = denoForm(server.command, server.args);
  const deno = form?.deno ?? host.deno;
  if (form !== undefined && deno !== undefined) {
    const warnings = form.dropped.length === 0 ? [] : [
      `sandbox: the server's own permission flags (${form.dropped.join(" ")}) are left out`,
    ];
    return {
      containment: "deno-permissions",
      spawn: {
        command: deno,
        args: denoRunArgs(form, profile, Object.keys(given)),
        inheritEnv: unique([...DENO_LAUNCH_ENV, ...profile.env]),
        env: { ...given },
        cwd: server.cwd,
      },
      warnings,
    };
  }
  if (host.platform === "linux" && host.bwrap !== undefined) {
    const warnings: string[] = [];
    if (profile.net.length > 0) {
      warnings.push(
        "sandbox: bubblewrap cannot filter by host: the server may reach the whole network",
      );
    }
    const filter = profile.run.length === 0 && SECCOMP_ARCHES.has(host.arch);
    if (profile.run.length > 0) {
      warnings.push(
        "sandbox: bubblewrap cannot filter by program: the server may start any program it can see",
      );
    } else if (!filter) {
      return refusal(
        profile,
        server,
        `bubblewrap cannot stop processes from starting on ${host.arch} (no seccomp filter)`,
      );
    }
    const inside = bwrapArgs(profile, server.command, server.args, {
      cwd: server.cwd,
      seccomp: filter,
    });
    const env: Record<string, string> = profile.env.includes("HOME") ? {} : { HOME: "/tmp" };
    const spawn: PlannedSpawn = filter
      ? {
        command: "/bin/sh",
        args: [
          "-c",
          HAND_FILTER,
          printfBytes(noSpawnFilter(host.arch as SeccompArch)),
          host.bwrap,
          ...inside,
        ],
        inheritEnv: unique(["PATH", ...profile.env]),
        env: { ...env, ...given },
        cwd: server.cwd,
      }
      : {
        command: host.bwrap,
        args: inside,
        inheritEnv: unique(["PATH", ...profile.env]),
        env: { ...env, ...given },
        cwd: server.cwd,
      };
    return { containment: "bwrap", spawn, warnings };
  }
  return refusal(profile, server, noSandbox(host, form !== undefined));
}

function refusal(profile: SandboxProfile, server: ServerCommand, why: string): SandboxPlan {
  if (profile.required) return { containment: "none", unavailable: why, warnings: [] };
  return {
    containment: "none",
    unavailable: why,
    spawn: {
      command: server.command,
      args: [...server.args],
      inheritEnv: unique([...SAFE_ENV_NAMES, ...profile.env]),
      env: { ...server.env },
      cwd: server.cwd,
    },
    warnings: [`sandbox: no sandbox applies (${why}); the server runs unsandboxed`],
  };
}

/**
 * Deno's side of the sandbox, pure: which commands Deno can run, and the `deno run` command
 * line that grants exactly a profile's permissions.
 *
 * Deno loads a module, its imports and its npm packages (from `node_modules` or its cache)
 * without any permission, so the module needs no `read` of its own: what the server reads
 * at run time is what `read` names. Permission flags the command already had (`-A`,
 * `--allow-*`, `-R`…, `-P`) are taken out, and `--no-prompt` is added, so nothing but the
 * profile grants anything.
 *
 * @module
 */

import type { SandboxProfile } from "./profile.ts";

/** A command Deno can run: the `deno` to use (or `undefined`: find one), its flags, the rest. */
export interface DenoForm {
  /** The `deno` executable the command names, or `undefined` when one must be found. */
  deno?: string;
  /** `deno run` flags the command gave, permission flags already taken out. */
  flags: string[];
  /** The module and its arguments. */
  module: string[];
  /** The permission flags that were taken out (reported in a warning). */
  dropped: string[];
}

const SCRIPT = /\.(?:[cm]?[jt]s|[jt]sx)$/i;
/** `deno run` flags whose value may be the next argument. */
const VALUE_FLAGS = new Set([
  "-c",
  "--config",
  "--import-map",
  "--lock",
  "--cert",
  "--location",
  "--seed",
  "-L",
  "--log-level",
  "--ext",
  "--preload",
  "--v8-flags",
]);
/** Short permission flags: read, write, net, env, sys, permission set, all. */
const SHORT_PERMISSIONS = new Set(["-A", "-R", "-W", "-N", "-E", "-S", "-P"]);

function basename(command: string): string {
  return command.split(/[\\/]/).pop()!.replace(/\.exe$/i, "");
}

/** Whether a flag grants a permission the profile decides (module loading apart). */
function isPermission(flag: string): boolean {
  const name = flag.split("=")[0];
  if (SHORT_PERMISSIONS.has(name) || /^-[ARWNESP]/.test(name) && !name.startsWith("--")) {
    return true;
  }
  if (name === "--allow-import") return false;
  return name.startsWith("--allow-") || name === "--permission-set" ||
    name.startsWith("--unsafely-");
}

/**
 * The Deno form of a command, or `undefined` when Deno cannot run it as it is:
 * `deno run [flags] module …`, a module (`jsr:`/`npm:` specifier, `.ts`/`.js` file) given as
 * the command, or `node script.js …` (a script without Node flags).
 *
 * @param command The command.
 * @param args Its arguments.
 * @returns The form, or `undefined`.
 *
 * @example
 * ```ts
 * import { denoForm } from "./deno_args.ts";
 *
 * const form = denoForm("deno", ["run", "-A", "--quiet", "server.ts", "--port", "1"]);
 * if (form?.module.join(" ") !== "server.ts --port 1" || form.dropped[0] !== "-A") {
 *   throw new Error("unexpected");
 * }
 * if (denoForm("npx", ["-y", "some-server"]) !== undefined) throw new Error("unexpected");
 * ```
 */
export function denoForm(command: string, args: readonly string[]): DenoForm | undefined {
  const name = basename(command);
  if (name === "deno") {
    if (args[0] !== "run") return undefined;
    const flags: string[] = [];
    const dropped: string[] = [];
    let i = 1;
    for (; i < args.length; i++) {
      const arg = args[i];
      if (arg === "--") {
        i++;
        break;
      }
      if (!arg.startsWith("-")) break;
      if (isPermission(arg)) dropped.push(arg);
      else {
        flags.push(arg);
        if (VALUE_FLAGS.has(arg) && i + 1 < args.length) flags.push(args[++i]);
      }
    }
    if (i >= args.length) return undefined;
    return { deno: command, flags, module: args.slice(i), dropped };
  }
  if (/^(?:jsr|npm):./.test(command) || SCRIPT.test(command)) {
    return { flags: [], module: [command, ...args], dropped: [] };
  }
  if (name === "node" && args.length > 0 && !args[0].startsWith("-") && SCRIPT.test(args[0])) {
    return { flags: [], module: [...args], dropped: [] };
  }
  return undefined;
}

/**
 * The `deno run` arguments that run a form under a profile: `--no-prompt`, the form's other
 * flags, then one `--allow-*` flag per non-empty list (`write` paths are readable too; the
 * names in `envNames` join `env`), then the module.
 *
 * @param form The command's Deno form.
 * @param profile The profile.
 * @param envNames Further variables the server may read (those given to it in `env`).
 * @returns The arguments after the `deno` executable.
 *
 * @example
 * ```ts
 * import { denoForm, denoRunArgs } from "./deno_args.ts";
 * import { checkSandbox } from "./profile.ts";
 *
 * const profile = checkSandbox({ read: ["/data"], net: ["127.0.0.1:8080"] }, "sandbox");
 * const args = denoRunArgs(denoForm("server.ts", [])!, profile, ["API_KEY"]);
 * const expected = "run --no-prompt --allow-read=/data --allow-net=127.0.0.1:8080 --allow-env=API_KEY server.ts";
 * if (args.join(" ") !== expected) throw new Error(args.join(" "));
 * ```
 */
export function denoRunArgs(
  form: DenoForm,
  profile: SandboxProfile,
  envNames: readonly string[] = [],
): string[] {
  const grant = (flag: string, list: readonly string[]) =>
    list.length === 0 ? [] : [`--allow-${flag}=${[...new Set(list)].join(",")}`];
  return [
    "run",
    "--no-prompt",
    ...form.flags,
    ...grant("read", [...profile.read, ...profile.write]),
    ...grant("write", profile.write),
    ...grant("net", profile.net),
    ...grant("env", [...profile.env, ...envNames]),
    ...grant("run", profile.run),
    ...form.module,
  ];
}

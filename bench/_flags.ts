/**
 * The benchmarks' command-line flags: `--key value`, `--key=value` and `--flag`.
 *
 * @module
 */

/** Parses `--key value` and `--flag` arguments. */
export function parseFlags(args: readonly string[]): Map<string, string> {
  const flags = new Map<string, string>();
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (!arg.startsWith("--")) continue;
    const eq = arg.indexOf("=");
    if (eq > 0) flags.set(arg.slice(2, eq), arg.slice(eq + 1));
    else if (i + 1 < args.length && !args[i + 1].startsWith("--")) {
      flags.set(arg.slice(2), args[++i]);
    } else flags.set(arg.slice(2), "true");
  }
  return flags;
}

/** A number flag with a default. */
export function numberFlag(flags: Map<string, string>, name: string, fallback: number): number {
  const value = flags.get(name);
  if (value === undefined) return fallback;
  const parsed = Number(value);
  if (!Number.isFinite(parsed) || parsed <= 0) {
    throw new RangeError(`--${name} must be a positive number`);
  }
  return parsed;
}

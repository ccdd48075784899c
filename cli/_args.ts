/**
 * The command line, read into a command, its words and its flags. Pure: no I/O.
 *
 * The server comes after `--` as a command and its arguments, as an `http(s)://` URL among
 * the words, or as `--server <url|name>` (a name from a config file).
 *
 * @module
 */

import { didYouMean } from "./_suggest.ts";

/** The flags every command takes, and those of `call` and `login`. */
export interface Flags {
  /** Machine-readable output. */
  json: boolean;
  /** Print the wire (secrets redacted) and the cause chain of errors. */
  verbose: boolean;
  /** Show the command's help. */
  help: boolean;
  /** `auto`, `modern`, `legacy` or a version. */
  protocol?: string;
  /** `Name: value` headers for an HTTP server. */
  headers: string[];
  /** The request timeout, in ms. */
  timeout?: number;
  /** The config file naming servers. */
  config?: string;
  /** A server URL or a config name. */
  server?: string;
  /** Tool arguments as one JSON object (`call`). */
  args?: string;
  /** Run the call as a task (`call`). */
  task: boolean;
  /** Shape the result within this many characters, the rest kept behind a handle (`call`). */
  maxChars?: number;
  /** Where a page starts (`read-result`). */
  offset?: number;
  /** The most characters of a page (`read-result`). */
  length?: number;
  /** Only the lines holding this text (`read-result`). */
  grep?: string;
  /** A subtree of the JSON (`read-result`). */
  jsonPath?: string;
  /** The base64 data of this media block (`read-result`). */
  media?: number;
  /** Do not try to open a browser (`login`). */
  noBrowser: boolean;
  /** Log in with the device flow (`login`). */
  device: boolean;
  /** The OAuth account profile (`login`, `whoami`, `logout` and the server commands). */
  profile?: string;
  /** Where `read` saves the resource's contents. */
  out?: string;
  /** `servers` lists the config's entries without connecting (`--config <file>` alone). */
  list?: boolean;
  /** How long a kept session may sit unused, in ms (`connect --idle`). */
  idle?: number;
  /** Every kept session (`disconnect --all`). */
  all?: boolean;
  /** Where the module `emit-ts` writes imports the library from. */
  importFrom?: string;
  /** `key=value` answers to the server's elicitation requests (`--answer`, repeatable). */
  answers: string[];
  /** The command that answers sampling requests (`--sample-command`). */
  sampleCommand?: string;
  /** The folders offered as roots (`--root`: the working folder; `--root <dir>`). */
  roots: string[];
}

/** A parsed command line. */
export interface ParsedArgs {
  /** The command (`tools`, `call`, …), or `undefined` when none was given. */
  command?: string;
  /** The words after the command (without the server's URL). */
  words: string[];
  /** The flags. */
  flags: Flags;
  /** The server command after `--`, if any. */
  serverCommand?: string[];
}

const VALUE_FLAGS = new Set([
  "--protocol",
  "--header",
  "--timeout",
  "--config",
  "--server",
  "--args",
  "--max-chars",
  "--offset",
  "--length",
  "--grep",
  "--json-path",
  "--media",
  "--profile",
  "--out",
  "--idle",
  "--import",
  "--answer",
  "--sample-command",
]);
const SHORT: Record<string, string> = { "-h": "--help", "-H": "--header", "-s": "--server" };
/** Every flag, for suggestions. */
const FLAGS = [
  "--json",
  "--verbose",
  "--help",
  "--task",
  "--no-browser",
  "--device",
  "--all",
  "--root",
  ...VALUE_FLAGS,
];

/** Whether `word` is an `http:` or `https:` URL. */
export function isUrl(word: string): boolean {
  return /^https?:\/\/[^\s]+$/i.test(word);
}

/**
 * Reads `argv` (without the runtime and script).
 *
 * @param argv The words of the command line.
 * @returns The command, its words, flags and server command.
 * @throws {TypeError} For an unknown flag or a flag without its value (a usage error).
 *
 * @example
 * ```ts
 * import { parseArgs } from "./_args.ts";
 *
 * const parsed = parseArgs(["call", "echo", "message=hi", "--json", "--", "node", "server.js"]);
 * if (parsed.command !== "call" || parsed.words.join() !== "echo,message=hi") throw new Error();
 * if (!parsed.flags.json || parsed.serverCommand?.join(" ") !== "node server.js") throw new Error();
 * ```
 */
export function parseArgs(argv: readonly string[]): ParsedArgs {
  const flags: Flags = {
    json: false,
    verbose: false,
    help: false,
    headers: [],
    task: false,
    noBrowser: false,
    device: false,
    answers: [],
    roots: [],
  };
  const words: string[] = [];
  let serverCommand: string[] | undefined;
  for (let i = 0; i < argv.length; i++) {
    const raw = argv[i];
    if (raw === "--") {
      serverCommand = argv.slice(i + 1);
      break;
    }
    if (!raw.startsWith("-") || raw === "-") {
      words.push(raw);
      continue;
    }
    const eq = raw.indexOf("=");
    let name = eq > 0 && raw.startsWith("--") ? raw.slice(0, eq) : raw;
    name = SHORT[name] ?? name;
    let value: string | undefined = eq > 0 && raw.startsWith("--") ? raw.slice(eq + 1) : undefined;
    if (name === "--root") {
      // `--root` alone offers the working folder; `--root <dir>` (a path) or `--root=<dir>`.
      const next = argv[i + 1];
      if (value === undefined && next !== undefined && /^(\.{1,2}|~)?\//.test(next)) {
        value = argv[++i];
      } else if (value === undefined && (next === "." || next === "..")) value = argv[++i];
      if (value === "") throw new TypeError("--root= needs a folder");
      flags.roots.push(value ?? ".");
      continue;
    }
    if (VALUE_FLAGS.has(name) && value === undefined) {
      if (i + 1 >= argv.length) throw new TypeError(`${name} needs a value`);
      value = argv[++i];
    } else if (!VALUE_FLAGS.has(name) && value !== undefined) {
      throw new TypeError(`${name} takes no value`);
    }
    setFlag(flags, name, value);
  }
  if (serverCommand !== undefined && serverCommand.length === 0) {
    throw new TypeError("nothing after --: give the server's command, e.g. -- npx -y server-x");
  }
  const [command, ...rest] = words;
  if (serverCommand === undefined && flags.server === undefined) {
    // The first http(s) URL among the words is the server.
    const index = rest.findIndex(isUrl);
    if (index !== -1) flags.server = rest.splice(index, 1)[0];
  }
  return { command, words: rest, flags, serverCommand };
}

function setFlag(flags: Flags, name: string, value: string | undefined): void {
  switch (name) {
    case "--json":
      flags.json = true;
      return;
    case "--verbose":
    case "-v":
      flags.verbose = true;
      return;
    case "--help":
      flags.help = true;
      return;
    case "--task":
      flags.task = true;
      return;
    case "--no-browser":
      flags.noBrowser = true;
      return;
    case "--device":
      flags.device = true;
      return;
    case "--profile":
      if (!/^[A-Za-z0-9._-]{1,64}$/.test(value!)) {
        throw new TypeError(
          `--profile takes a name of letters, digits, ".", "_" or "-", not ${
            JSON.stringify(value)
          }`,
        );
      }
      flags.profile = value;
      return;
    case "--protocol":
      flags.protocol = value;
      return;
    case "--header":
      if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+:/.test(value!)) {
        throw new TypeError(`--header takes "Name: value", not ${JSON.stringify(value)}`);
      }
      flags.headers.push(value!);
      return;
    case "--timeout": {
      const ms = Number(value);
      if (!Number.isFinite(ms) || ms <= 0) {
        throw new TypeError(`--timeout takes milliseconds (a positive number), not ${value}`);
      }
      flags.timeout = ms;
      return;
    }
    case "--config":
      flags.config = value;
      return;
    case "--server":
      flags.server = value;
      return;
    case "--args":
      flags.args = value;
      return;
    case "--max-chars":
    case "--offset":
    case "--length":
    case "--media": {
      const n = Number(value);
      const least = name === "--offset" || name === "--media" ? 0 : name === "--length" ? 1 : 200;
      if (!Number.isSafeInteger(n) || n < least) {
        throw new TypeError(`${name} takes a whole number, at least ${least}, not ${value}`);
      }
      if (name === "--max-chars") flags.maxChars = n;
      else if (name === "--offset") flags.offset = n;
      else if (name === "--media") flags.media = n;
      else flags.length = n;
      return;
    }
    case "--grep":
      flags.grep = value;
      return;
    case "--json-path":
      flags.jsonPath = value;
      return;
    case "--out":
      flags.out = value;
      return;
    case "--idle":
      flags.idle = parseDuration(name, value!);
      return;
    case "--all":
      flags.all = true;
      return;
    case "--import":
      flags.importFrom = value;
      return;
    case "--answer":
      if (!/^[^=]+=/.test(value!)) {
        throw new TypeError(`--answer takes key=value, not ${JSON.stringify(value)}`);
      }
      flags.answers.push(value!);
      return;
    case "--sample-command":
      if (value!.trim() === "") throw new TypeError("--sample-command needs a command");
      flags.sampleCommand = value;
      return;
    default:
      throw new TypeError(`unknown flag ${name}${didYouMean(name, FLAGS)}`);
  }
}

const UNITS: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 };

/**
 * A duration such as `90s`, `10m`, `1h` or `500ms` (a bare number is seconds), in ms: at
 * least 100 ms, at most a week.
 *
 * @example
 * ```ts
 * import { parseDuration } from "./_args.ts";
 *
 * if (parseDuration("--idle", "10m") !== 600_000 || parseDuration("--idle", "2") !== 2_000) {
 *   throw new Error();
 * }
 * ```
 */
export function parseDuration(name: string, value: string): number {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(value.trim());
  const ms = match ? Number(match[1]) * UNITS[match[2] ?? "s"] : NaN;
  if (!(ms >= 100 && ms <= 7 * 24 * 3_600_000)) {
    throw new TypeError(
      `${name} takes a duration such as 30s, 10m or 1h (100ms to 7 days), not ${value}`,
    );
  }
  return Math.round(ms);
}

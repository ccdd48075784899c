/**
 * Private: one server entry of a config file as a hub server. Stdio entries take
 * `command`, `args`, `env`, `cwd` and `sandbox` (`{ read, write, net, env, run, required }`,
 * variables expanded in its strings); HTTP entries `url`, `headers` and
 * `profile` (the OAuth account profile); `type` is checked
 * against them where given (`"sse"` and `"streamable-http"` are reached over Streamable
 * HTTP); `maxResultChars` is the budget of the server's shaped results. Variables are expanded
 * in every string value (`_expand.ts`). The hub's own keys `start` (`"eager"` or `"lazy"`),
 * `idleMs` and `alwaysLoad` (`true` or tool names) are kept on either kind, and so are the
 * `elicitation` answer rules (the client option). Keys the hub has no
 * use for (a host's own, such as `envFile` or `timeout`) are left out with a warning.
 *
 * @module
 */

import { checkSandbox } from "../transports/stdio.ts";
import type { HubServer } from "./types.ts";
import { configError, type ConfigPlace } from "./_config_error.ts";
import { expand, type Sources } from "./_expand.ts";

const KNOWN = new Set([
  "type",
  "command",
  "args",
  "env",
  "cwd",
  "sandbox",
  "url",
  "headers",
  "disabled",
  "start",
  "idleMs",
  "alwaysLoad",
  "maxResultChars",
  "profile",
  "elicitation",
]);
const SANDBOX_LISTS = ["read", "write", "net", "env", "run"];
const HTTP_TYPES = new Set(["http", "sse", "streamable-http", "streamableHttp"]);

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

async function strings(
  value: unknown,
  sources: Sources,
  place: ConfigPlace,
): Promise<Record<string, string>> {
  if (!isRecord(value)) throw configError(place, "invalid_value", "must be an object of strings");
  const result: Record<string, string> = {};
  for (const [name, item] of Object.entries(value)) {
    const at = { ...place, key: `${place.key}.${name}` };
    // Numbers and booleans are written bare in hand-kept files; they mean their text.
    if (typeof item === "number" || typeof item === "boolean") result[name] = String(item);
    else if (typeof item === "string") result[name] = await expand(item, sources, at);
    else throw configError(at, "invalid_value", "must be a string");
  }
  return result;
}

async function text(value: unknown, sources: Sources, place: ConfigPlace): Promise<string> {
  if (typeof value !== "string" || value === "") {
    throw configError(place, "invalid_value", "must be a non-empty string");
  }
  return await expand(value, sources, place);
}

/** A stdio entry's `sandbox`: its lists' strings expanded, then checked as `stdio()` will. */
async function sandboxOf(
  value: unknown,
  sources: Sources,
  place: ConfigPlace & { key: string },
): Promise<Record<string, unknown>> {
  if (!isRecord(value)) throw configError(place, "invalid_value", "must be an object");
  const sandbox: Record<string, unknown> = { ...value };
  for (const list of SANDBOX_LISTS) {
    const items = value[list];
    if (!Array.isArray(items)) continue;
    sandbox[list] = await Promise.all(
      items.map((item, i) =>
        typeof item === "string"
          ? expand(item, sources, { ...place, key: `${place.key}.${list}[${i}]` })
          : item
      ),
    );
  }
  try {
    checkSandbox(sandbox, place.key);
  } catch (error) {
    // The check's message names the key (e.g. `mcpServers.fs.sandbox.read[0]`), never a value.
    const message = (error as Error).message;
    const named = message.startsWith(place.key) ? message.split(" ", 1)[0] : place.key;
    const problem = named === place.key && !message.startsWith(place.key)
      ? message
      : message.slice(named.length).trim();
    throw configError({ ...place, key: named }, "invalid_value", problem, error);
  }
  return sandbox;
}

/** The hub's own keys of an entry, checked. */
function hubKeys(
  entry: Record<string, unknown>,
  at: (key: string) => ConfigPlace,
): Record<string, unknown> {
  const own: Record<string, unknown> = {};
  const { start, idleMs, alwaysLoad } = entry;
  if (start !== undefined) {
    if (start !== "eager" && start !== "lazy") {
      throw configError(at("start"), "invalid_value", 'must be "eager" or "lazy"');
    }
    own.start = start;
  }
  if (idleMs !== undefined) {
    if (typeof idleMs !== "number" || !(idleMs > 0)) {
      throw configError(at("idleMs"), "invalid_value", "must be a positive number");
    }
    own.idleMs = idleMs;
  }
  if (alwaysLoad !== undefined) {
    const ok = typeof alwaysLoad === "boolean" ||
      (Array.isArray(alwaysLoad) && alwaysLoad.every((n) => typeof n === "string" && n !== ""));
    if (!ok) {
      throw configError(at("alwaysLoad"), "invalid_value", "must be true, false or tool names");
    }
    own.alwaysLoad = alwaysLoad;
  }
  return own;
}

/**
 * Converts one entry, or returns `undefined` for a `disabled: true` one.
 *
 * @param entry The entry as the file has it.
 * @param sources Where variables come from.
 * @param place The file, the entry's name and its key path (e.g. `mcpServers.github`).
 * @param warn Where left-out keys are reported.
 * @returns The hub server, or `undefined`.
 * @throws {McpError} kind `config`, naming the entry and the key.
 */
export async function configEntry(
  entry: unknown,
  sources: Sources,
  place: ConfigPlace & { key: string },
  warn: (message: string) => void,
): Promise<HubServer | undefined> {
  if (!isRecord(entry)) throw configError(place, "invalid_entry", "must be an object");
  const at = (key: string) => ({ ...place, key: `${place.key}.${key}` });
  if (entry.disabled !== undefined && typeof entry.disabled !== "boolean") {
    throw configError(at("disabled"), "invalid_value", "must be true or false");
  }
  if (entry.disabled === true) return undefined;
  for (const key of Object.keys(entry)) {
    if (!KNOWN.has(key)) {
      warn(`${place.file}: ${place.key}.${key} is not used by the hub; left out`);
    }
  }
  const own = hubKeys(entry, at);
  const budget = entry.maxResultChars;
  if (budget !== undefined && !(Number.isSafeInteger(budget) && (budget as number) >= 200)) {
    throw configError(
      at("maxResultChars"),
      "invalid_value",
      "must be a whole number, at least 200",
    );
  }
  const extra: Record<string, unknown> = budget === undefined
    ? {}
    : { maxResultChars: budget as number };
  // The answer rules of the server's elicitation requests (checked by createClient).
  if (entry.elicitation !== undefined) {
    if (!Array.isArray(entry.elicitation) || !entry.elicitation.every(isRecord)) {
      throw configError(at("elicitation"), "invalid_value", "must be a list of answer rules");
    }
    extra.elicitation = entry.elicitation;
  }
  const type = entry.type;
  if (type !== undefined && type !== "stdio" && !HTTP_TYPES.has(type as string)) {
    throw configError(at("type"), "invalid_value", 'must be "stdio", "http" or "sse"');
  }
  if (entry.command !== undefined && entry.url !== undefined) {
    throw configError(at("url"), "invalid_entry", "an entry has a command or a url, not both");
  }
  if (entry.command !== undefined || type === "stdio") {
    if (type !== undefined && type !== "stdio") {
      throw configError(at("type"), "invalid_value", `must be "stdio" for an entry with a command`);
    }
    const server: Record<string, unknown> = {
      command: await text(entry.command, sources, at("command")),
      ...extra,
    };
    if (entry.args !== undefined) {
      if (!Array.isArray(entry.args)) {
        throw configError(at("args"), "invalid_value", "must be an array of strings");
      }
      const args: string[] = [];
      for (const [i, arg] of entry.args.entries()) {
        if (typeof arg !== "string" && typeof arg !== "number") {
          throw configError(at(`args[${i}]`), "invalid_value", "must be a string");
        }
        args.push(await expand(String(arg), sources, at(`args[${i}]`)));
      }
      server.args = args;
    }
    if (entry.env !== undefined) server.env = await strings(entry.env, sources, at("env"));
    if (entry.cwd !== undefined) server.cwd = await text(entry.cwd, sources, at("cwd"));
    if (entry.sandbox !== undefined) {
      server.sandbox = await sandboxOf(entry.sandbox, sources, at("sandbox"));
    }
    return { ...server, ...own } as unknown as HubServer;
  }
  if (entry.url !== undefined) {
    if (type !== undefined && !HTTP_TYPES.has(type as string)) {
      throw configError(
        at("type"),
        "invalid_value",
        `must be "http" or "sse" for an entry with a url`,
      );
    }
    if (entry.sandbox !== undefined) {
      throw configError(
        at("sandbox"),
        "invalid_entry",
        "a sandbox applies to servers started with a command",
      );
    }
    const url = await text(entry.url, sources, at("url"));
    if (!URL.canParse(url) || !/^https?:$/.test(new URL(url).protocol)) {
      throw configError(at("url"), "invalid_value", "must be an http(s) URL");
    }
    const server: Record<string, unknown> = { url, ...extra };
    if (entry.profile !== undefined) {
      server.profile = await text(entry.profile, sources, at("profile"));
    }
    if (entry.headers !== undefined) {
      server.headers = await strings(entry.headers, sources, at("headers"));
    }
    return { ...server, ...own } as unknown as HubServer;
  }
  throw configError(
    at("command"),
    "invalid_entry",
    "an entry needs a command (stdio) or a url (HTTP)",
  );
}

/**
 * Private: the credentials a transport holds, and the one step that takes them out of
 * whatever the server wrote. A transport remembers each credential it is given or sends
 * (bearer and OAuth tokens, client secrets, keys, codes, DPoP proofs); every message,
 * error (message, `data`, `cause` chain, stack) and warning that comes from its links is
 * passed through {@linkcode Secrets.value}, {@linkcode Secrets.error} or
 * {@linkcode Secrets.text}, which replace each occurrence by `[redacted]`. With them, the
 * one rule for names whose values are credentials ({@linkcode isCredentialName}): object keys
 * in cassettes, request and configured headers, and a stdio server's environment variables
 * all use it. It is unanchored (`authToken`, `x-auth-token`, `AWS_SECRET_ACCESS_KEY`,
 * `privateKey` all match) and errs towards redacting; the only exceptions are the protocol's
 * own counters and handles that merely contain such a word (`progressToken`, `maxTokens`,
 * token counts).
 *
 * @module
 */

/** What replaces a credential. */
export const REDACTED = "[redacted]";

/** Shorter values are not remembered: redacting them would garble ordinary text. */
const MIN_LENGTH = 8;
/** How many credentials seen in requests are remembered (DPoP proofs change every time). */
const MAX_SEEN = 128;
/** How many configured credentials are remembered (they change with `setAuth`). */
const MAX_PINNED = 32;
const MAX_DEPTH = 64;

/** A transport's credentials and the redaction step. */
export interface Secrets {
  /** Whether no credential is known (then every step returns its input as is). */
  readonly empty: boolean;
  /**
   * Remembers a credential. `pinned` ones (configured: a bearer token, a client secret, a
   * key) are kept longer than the ones seen in requests.
   */
  add(value: string | undefined, pinned?: boolean): void;
  /** `text` with every known credential replaced by `[redacted]`. */
  text(text: string): string;
  /** A JSON-like value with credentials redacted in every string (keys too); the same value when clean. */
  value<T>(value: T): T;
  /**
   * Redacts an error in place (message, stack, `data`, and the same along its `cause`
   * chain) and returns it; anything else thrown goes through {@linkcode Secrets.value}.
   */
  error<T>(error: T): T;
  /**
   * Also redacts the credentials `other` knows, now and later (e.g. an OAuth middleware's,
   * when its `fetch` is handed to a transport).
   */
  include(other: Secrets): void;
  /** The forms of the credentials this set itself knows, and a counter of their changes. */
  own(): { forms: readonly string[]; version: number };
}

/** Where a `fetch` that holds credentials (the OAuth middleware's) keeps its {@linkcode Secrets}. */
export const SECRETS: unique symbol = Symbol.for("@conduit/mcp.secrets");

/** The {@linkcode Secrets} a `fetch` function carries, if any. */
export function secretsOf(fetch: unknown): Secrets | undefined {
  return typeof fetch === "function" ? (fetch as { [SECRETS]?: Secrets })[SECRETS] : undefined;
}

/**
 * What a holder keeps under {@linkcode SECRETS}: its secrets, or what makes them on first
 * need (a Streamable HTTP transport's are made when it first opens, or when asked for here).
 */
export type HeldSecrets = Secrets | (() => Promise<Secrets>);

/**
 * Marks `holder` (a transport) as holding `secrets`, out of sight (not enumerable), so that
 * what reports on it (the client's tracing) redacts the same credentials.
 *
 * @param holder The object.
 * @param secrets Its credentials, or what makes them.
 * @returns `holder`.
 */
export function holdSecrets<T extends object>(holder: T, secrets: HeldSecrets): T {
  Object.defineProperty(holder, SECRETS, { value: secrets });
  return holder;
}

/**
 * The {@linkcode Secrets} an object marked by {@linkcode holdSecrets} holds, if any (made
 * now when it holds what makes them).
 */
export async function heldSecrets(holder: unknown): Promise<Secrets | undefined> {
  if ((typeof holder !== "object" || holder === null) && typeof holder !== "function") {
    return undefined;
  }
  const held = (holder as { [SECRETS]?: HeldSecrets })[SECRETS];
  return typeof held === "function" ? await held() : held;
}

/** The forms a credential may be written in: as is, percent-encoded, JSON-escaped. */
function variants(value: string): string[] {
  const forms = new Set([value]);
  try {
    forms.add(encodeURIComponent(value));
  } catch {
    // a lone surrogate: no encoded form
  }
  forms.add(JSON.stringify(value).slice(1, -1));
  return [...forms];
}

/**
 * `text` with `form` replaced wherever it occurs, and also where a text clipped it: a
 * prefix of it (of at least {@linkcode MIN_LENGTH} characters) that ends the text or is
 * followed by `…`, as previews and clipped descriptions end.
 */
function redactForm(text: string, form: string, head: string): string {
  let at = text.indexOf(head);
  if (at < 0) return text;
  let out = "";
  let from = 0;
  while (at >= 0) {
    let length = MIN_LENGTH;
    while (length < form.length && text[at + length] === form[length]) length++;
    const end = at + length;
    const clipped = end === text.length || text[end] === "\u2026";
    if (length === form.length || clipped) {
      out += text.slice(from, at) + REDACTED;
      from = end;
    }
    at = text.indexOf(head, from > at ? from : at + 1);
  }
  return out + text.slice(from);
}

/**
 * A fresh, empty set of credentials.
 *
 * @returns The set.
 */
export function createSecrets(): Secrets {
  const pinned = new Map<string, string[]>();
  const seen = new Map<string, string[]>();
  let last: string | undefined; // the latest seen: the same token comes with every request
  let version = 0;
  let mine: string[] | undefined; // own forms; rebuilt after a change
  let forms: string[] = []; // own and included, longest first
  let heads: string[] = []; // their first characters, searched for first
  let built = -1; // the versions `forms` was built at
  const included: Secrets[] = [];

  const own = () => {
    if (mine === undefined) {
      const list = new Set<string>();
      for (const map of [pinned, seen]) for (const f of map.values()) f.forEach((v) => list.add(v));
      mine = [...list];
    }
    return { forms: mine, version };
  };

  const all = (): string[] => {
    if (included.length === 0 && built === version) return forms;
    let versions = version;
    for (const other of included) versions += other.own().version;
    if (versions !== built) {
      const list = new Set(own().forms);
      for (const other of included) other.own().forms.forEach((f) => list.add(f));
      forms = [...list].sort((a, b) => b.length - a.length);
      heads = forms.map((form) => form.slice(0, MIN_LENGTH));
      built = versions;
    }
    return forms;
  };
  const isEmpty = () => pinned.size === 0 && seen.size === 0 && included.every((o) => o.empty);

  const text = (input: string, known: string[] = all()): string => {
    if (input.length < MIN_LENGTH) return input;
    let out = input;
    for (let i = 0; i < known.length; i++) out = redactForm(out, known[i], heads[i]);
    return out;
  };

  /** Copy-on-write walk of a JSON-like value (the forms looked up once per value). */
  function walk(input: unknown, known: string[], depth: number): unknown {
    if (typeof input === "string") return input.length < MIN_LENGTH ? input : text(input, known);
    if (typeof input !== "object" || input === null || depth > MAX_DEPTH) return input;
    if (input instanceof Error) return error(input, depth);
    if (Array.isArray(input)) {
      let copy: unknown[] | undefined;
      for (let i = 0; i < input.length; i++) {
        const clean = walk(input[i], known, depth + 1);
        if (clean !== input[i]) (copy ??= input.slice())[i] = clean;
      }
      return copy ?? input;
    }
    const proto = Object.getPrototypeOf(input);
    if (proto !== Object.prototype && proto !== null) return input; // not JSON-like
    const record = input as Record<string, unknown>;
    let copy: Record<string, unknown> | undefined;
    for (const key in record) {
      const item = record[key];
      const clean = walk(item, known, depth + 1);
      const cleanKey = key.length < MIN_LENGTH ? key : text(key, known);
      if (clean === item && cleanKey === key) continue;
      copy ??= { ...record };
      if (cleanKey !== key) delete copy[key];
      copy[cleanKey] = clean;
    }
    return copy ?? input;
  }

  const value = <T>(input: T, depth = 0): T => {
    const known = all();
    // Nothing to redact (an HTTP transport without credentials): no walk over every string.
    return known.length === 0 ? input : walk(input, known, depth) as T;
  };

  function error<T>(input: T, depth = 0): T {
    if (!(input instanceof Error)) return value(input, depth);
    if (depth > 8) return input;
    const target = input as Error & { data?: unknown };
    try {
      const message = text(target.message);
      if (message !== target.message) target.message = message;
      if (typeof target.stack === "string") {
        const stack = text(target.stack);
        if (stack !== target.stack) target.stack = stack;
      }
      if ("data" in target) {
        const data = value(target.data, depth + 1);
        if (data !== target.data) Object.defineProperty(target, "data", { value: data });
      }
      if (target.cause !== undefined) {
        const cause = error(target.cause, depth + 1);
        if (cause !== target.cause) target.cause = cause;
      }
    } catch {
      // A frozen error: left as it is.
    }
    return input;
  }

  const self: Secrets = {
    get empty() {
      return isEmpty();
    },
    add(secret, keep = false) {
      if (typeof secret !== "string" || secret.length < MIN_LENGTH) return;
      if (!keep) {
        if (secret === last) return;
        last = secret;
      }
      if (pinned.has(secret)) return;
      const map = keep ? pinned : seen;
      const known = map.get(secret);
      map.delete(secret); // (re-inserted last: the most recent)
      map.set(secret, known ?? variants(secret));
      if (known !== undefined) return;
      if (map.size > (keep ? MAX_PINNED : MAX_SEEN)) map.delete(map.keys().next().value!);
      if (keep) seen.delete(secret);
      mine = undefined;
      version++;
    },
    text: (input) => isEmpty() ? input : text(input),
    value: (input) => isEmpty() ? input : value(input),
    error: (input) => isEmpty() ? input : error(input),
    include(other) {
      if (other === self || included.includes(other)) return;
      included.push(other);
      // A long-replaced middleware's set is dropped; the version sum still only grows.
      const dropped = included.length > 8 ? included.shift()!.own().version : 0;
      version += 1 + dropped;
    },
    own,
  };
  return self;
}

/** A credential word anywhere in a name. */
const CREDENTIAL_WORD = /token|secret|key|passw|passphrase|pwd|auth|cred|cookie|jwt|bearer|dpop/i;

/** Names that contain a credential word but hold none (a progress token, token counts). */
const NOT_CREDENTIAL = /^(?:progress_?token|max_?tokens|(?:input|output|total)_?tokens)$/i;

/**
 * Whether a key, header or environment variable name holds a credential.
 *
 * @param name The name, in any case.
 * @returns `true` for `authToken`, `GITHUB_TOKEN`, `x-auth-token`, `passphrase`, …;
 *   `false` for `progressToken`, `maxTokens` and ordinary names.
 *
 * @example
 * ```ts
 * import { isCredentialName } from "./secrets.ts";
 *
 * if (!isCredentialName("AWS_SECRET_ACCESS_KEY") || isCredentialName("progressToken")) {
 *   throw new Error("unexpected");
 * }
 * ```
 */
export function isCredentialName(name: string): boolean {
  return CREDENTIAL_WORD.test(name) && !NOT_CREDENTIAL.test(name);
}

/**
 * The rule as a `RegExp` (for options that take one, such as a recording's `redactKeys`):
 * it matches exactly the names {@linkcode isCredentialName} accepts. (Marked pure: a bundle
 * whose start only reaches this module through a re-export need not run it there.)
 */
export const CREDENTIAL_NAME: RegExp = /* @__PURE__ */ (() =>
  new RegExp(
    `^(?!${NOT_CREDENTIAL.source.slice(1, -1)}$).*(?:${CREDENTIAL_WORD.source})`,
    "i",
  ))();

/**
 * Private: tool names a model API takes. OpenAI and Anthropic accept
 * `^[a-zA-Z0-9_-]{1,64}$`; MCP names (and a hub's `server__tool` names) can be longer or use
 * other characters. A name that fits is kept; any other has its other characters replaced by
 * `_` and, when that is too long or taken, is cut and given a short hash of the original
 * name, so two long names that share their first 64 characters still differ. Each safe name
 * maps back to its original. Names handed out before for the same source (`previous`) are
 * kept: a tool keeps its safe name when the server lists a new one, and a safe name once
 * given to a tool that is gone is not given to another, so a model's call by a name it saw
 * never reaches a different tool. Pure.
 *
 * @module
 */

/** How many earlier names of one source are remembered (the oldest are forgotten first). */
export const MAX_REMEMBERED = 1024;

/** The longest name the APIs accept. */
export const MAX_NAME = 64;

/** A name the APIs accept. */
const SAFE = /^[a-zA-Z0-9_-]{1,64}$/;

/** Original names and safe names, both ways. */
export interface NameMap {
  /** Safe name → original name. */
  readonly original: ReadonlyMap<string, string>;
  /** Original name → safe name. */
  readonly safe: ReadonlyMap<string, string>;
}

/** FNV-1a over the name's UTF-16 units, as 8 hex digits. */
export function shortHash(text: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash.toString(16).padStart(8, "0");
}

/** The name with every character outside `[a-zA-Z0-9_-]` as `_` (`tool` when empty). */
function sanitized(name: string): string {
  const out = name.replace(/[^a-zA-Z0-9_-]/g, "_");
  return out === "" ? "tool" : out;
}

/** The name cut to leave room for `_` and a hash of `seed`. */
function hashed(name: string, seed: string, max: number): string {
  const hash = shortHash(seed);
  return `${sanitized(name).slice(0, max - hash.length - 1)}_${hash}`;
}

/**
 * Safe names for a list of tool names: deterministic (a name's safe form depends only on it
 * and on the names that already fit), unique, each at most `max` characters.
 *
 * @param names The original names (duplicates share one safe name).
 * @param max The longest safe name (default 64).
 * @param previous Original → safe names given before for the same source: each listed name
 *   keeps its own, and the others' stay reserved.
 * @returns Both directions of the mapping.
 */
export function safeNames(
  names: readonly string[],
  max: number = MAX_NAME,
  previous: ReadonlyMap<string, string> = new Map(),
): NameMap {
  const original = new Map<string, string>();
  const safe = new Map<string, string>();
  const take = (name: string, as: string) => {
    original.set(as, name);
    safe.set(name, as);
  };
  const fits = (name: string) => SAFE.test(name) && name.length <= max;
  const listed = new Set(names);
  // Names given before: kept by their tools, and reserved for the ones no longer listed.
  const reserved = new Set<string>();
  for (const [name, as] of previous) {
    if (!SAFE.test(as) || as.length > max) continue;
    if (listed.has(name) && !original.has(as)) take(name, as);
    else if (!listed.has(name)) reserved.add(as);
  }
  const taken = (as: string) => original.has(as) || reserved.has(as);
  // Names that already fit keep themselves, whatever their order, unless another tool has it.
  for (const name of listed) if (fits(name) && !safe.has(name) && !taken(name)) take(name, name);
  for (const name of [...listed].filter((n) => !safe.has(n)).sort()) {
    let candidate = sanitized(name);
    if (candidate.length > max || taken(candidate)) candidate = hashed(name, name, max);
    // A clash of hashes (or with a name that fits): hash again with a counter.
    for (let i = 1; taken(candidate); i++) candidate = hashed(name, `${name}#${i}`, max);
    take(name, candidate);
  }
  return { original, safe };
}

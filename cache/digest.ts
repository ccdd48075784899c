/**
 * Digests for cache keys: a SHA-256 (Web Crypto, in every runtime and edge worker) of a
 * value's canonical JSON, so keys name servers, credentials and params without holding
 * them (a bearer token is keyed by its digest, never by the token).
 *
 * @module
 */

const encoder = new TextEncoder();

/**
 * JSON with object keys sorted, so equal values give equal text.
 *
 * @param value A JSON value.
 * @returns Its canonical JSON.
 */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (typeof value === "object" && value !== null) {
    const keys = Object.keys(value).filter((k) => (value as never)[k] !== undefined).sort();
    return `{${
      keys.map((k) => `${JSON.stringify(k)}:${canonicalJson((value as never)[k])}`).join(",")
    }}`;
  }
  return JSON.stringify(value) ?? "null";
}

/**
 * The SHA-256 of a text, as 32 hex digits (128 bits).
 *
 * @param text The text.
 * @returns The digest.
 *
 * @example
 * ```ts
 * import { digest } from "./digest.ts";
 *
 * const a = await digest("token-1");
 * if (a.length !== 32 || a === await digest("token-2") || a.includes("token")) throw new Error();
 * ```
 */
export async function digest(text: string): Promise<string> {
  return hexOf((await sha256(text)).subarray(0, 16));
}

const sha256 = async (text: string) =>
  new Uint8Array(await crypto.subtle.digest("SHA-256", encoder.encode(text)));

const hexOf = (bytes: Uint8Array) => {
  let hex = "";
  for (const byte of bytes) hex += byte.toString(16).padStart(2, "0");
  return hex;
};

/**
 * The SHA-256 of a text as its two halves, each 32 hex digits: two names from one digest
 * (the first is {@linkcode digest}'s), for a caller that needs two and pays per digest.
 *
 * @param text The text.
 * @returns The first and the second half.
 *
 * @example
 * ```ts
 * import { digest, digestHalves } from "./digest.ts";
 *
 * const [first, second] = await digestHalves("token-1");
 * if (first !== await digest("token-1") || second.length !== 32 || first === second) {
 *   throw new Error("unexpected");
 * }
 * ```
 */
export async function digestHalves(text: string): Promise<[string, string]> {
  const bytes = await sha256(text);
  return [hexOf(bytes.subarray(0, 16)), hexOf(bytes.subarray(16))];
}

/** Who a client talks to, and as whom, for the cache's keys. */
export interface CacheTarget {
  /** Names the server: a digest of its URL, its command line, or a process-local id. */
  server: string;
  /**
   * Names the credentials' identity (a digest), or `undefined` when it is not known (an
   * `auth` function without `credentialId`): results the server marked private are then
   * never served from the cache.
   */
  identity: string | undefined;
  /**
   * The identity may change without new credentials (an OAuth login brings the token's
   * issuer, client and subject): the target is asked again on every operation.
   */
  live?: boolean;
  /**
   * Names what the client connected to, without the configuration that only changes what
   * the server returns (headers, `env`): a digest of the URL's origin and path, or of the
   * command, its arguments and working directory. Governance keys pins and grants by it, so
   * a rotated API key does not reset them. Absent: `server` stands for it.
   */
  endpoint?: string;
}

/** What a caller of a transport's `cacheTarget` needs of the target. */
export interface CacheTargetWants {
  /**
   * Whether the target names the endpoint (`true` when not given); `false` skips that
   * digest, for a caller that keys by `server` and `identity` only.
   */
  endpoint?: boolean;
}

let counter = 0;
const local = new WeakMap<object, string>();

/**
 * A process-local name for an object (a transport or an in-process server) that has no
 * name shared between processes.
 *
 * @param owner The object.
 * @returns The same name for the same object, in this process only.
 */
export function localName(owner: object): string {
  let name = local.get(owner);
  if (name === undefined) {
    name = `local:${crypto.randomUUID()}:${++counter}`;
    local.set(owner, name);
  }
  return name;
}

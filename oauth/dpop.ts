/**
 * DPoP (RFC 9449): one key pair per client session, proofs for resource requests (signed
 * with jose) and the oauth4webapi handle for token requests (same key), with the nonces
 * servers hand out (`DPoP-Nonce`), kept per origin.
 *
 * @module
 */

import { calculateJwkThumbprint, exportJWK, generateKeyPair, type JWK, SignJWT } from "jose";
import * as oauth from "oauth4webapi";
import type { DpopHandle } from "./token.ts";
import { checkKeys } from "../protocol/option_keys.ts";

/** A DPoP signer: proofs for requests, and the handle for token requests. */
export interface DpopSigner {
  /** The JWS algorithm, e.g. `"ES256"`. */
  readonly algorithm: string;
  /** The key's JWK SHA-256 thumbprint (`jkt`). */
  thumbprint(): Promise<string>;
  /**
   * A fresh proof for one request (new `jti`, `iat` now, `htu` without query or fragment,
   * `ath` when an access token is given, the origin's last nonce).
   */
  proof(method: string, url: URL, accessToken?: string): Promise<string>;
  /** Remembers a `DPoP-Nonce` the server sent for the response's origin. */
  rememberNonce(url: URL, response: Response): boolean;
  /** The oauth4webapi handle for token endpoint requests (same key). */
  readonly handle: DpopHandle;
}

/** Options for {@linkcode createDpopSigner}. */
export interface DpopSignerOptions {
  /** The key pair (default: a new, non-extractable-private ES256 pair). */
  keyPair?: CryptoKeyPair;
  /** The algorithm of `keyPair` (default `"ES256"`). */
  algorithm?: string;
  /** The clock (ms since the epoch). */
  now?: () => number;
}

/**
 * Creates a DPoP signer. The public key must be extractable (it goes into every proof).
 *
 * @param options The key pair and algorithm.
 * @returns The signer.
 *
 * @example
 * ```ts
 * import { decodeProtectedHeader, decodeJwt } from "jose";
 * import { createDpopSigner } from "./dpop.ts";
 *
 * const signer = await createDpopSigner();
 * const proof = await signer.proof("POST", new URL("https://mcp.example.com/mcp?x=1"), "at");
 * const header = decodeProtectedHeader(proof);
 * const claims = decodeJwt(proof);
 * if (header.typ !== "dpop+jwt" || claims.htu !== "https://mcp.example.com/mcp") throw new Error();
 * if (typeof claims.ath !== "string") throw new Error();
 * ```
 */
export async function createDpopSigner(options: DpopSignerOptions = {}): Promise<DpopSigner> {
  checkKeys(options, ["keyPair", "algorithm", "now"], "createDpopSigner options");
  const algorithm = options.algorithm ?? "ES256";
  const keyPair = options.keyPair ??
    (await generateKeyPair(algorithm, { extractable: false })) as unknown as CryptoKeyPair;
  const now = options.now ?? Date.now;
  const publicJwk: JWK = await exportJWK(keyPair.publicKey);
  const jwk: JWK = {};
  for (const name of ["kty", "crv", "x", "y", "n", "e"] as const) {
    if (publicJwk[name] !== undefined) jwk[name] = publicJwk[name];
  }
  const nonces = new Map<string, string>();
  let jkt: string | undefined;
  const handle = oauth.DPoP({}, keyPair);
  return {
    algorithm,
    handle,
    async thumbprint() {
      jkt ??= await calculateJwkThumbprint(jwk, "sha256");
      return jkt;
    },
    async proof(method, url, accessToken) {
      const claims: Record<string, unknown> = {
        jti: crypto.randomUUID(),
        htm: method.toUpperCase(),
        htu: `${url.origin}${url.pathname}`,
      };
      const nonce = nonces.get(url.origin);
      if (nonce !== undefined) claims.nonce = nonce;
      if (accessToken !== undefined) {
        const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(accessToken));
        claims.ath = base64url(new Uint8Array(digest));
      }
      return await new SignJWT(claims)
        .setProtectedHeader({ alg: algorithm, typ: "dpop+jwt", jwk })
        .setIssuedAt(Math.floor(now() / 1000))
        .sign(keyPair.privateKey);
    },
    rememberNonce(url, response) {
      const nonce = response.headers.get("dpop-nonce");
      if (nonce === null || nonce === "" || nonces.get(url.origin) === nonce) return false;
      nonces.set(url.origin, nonce);
      return true;
    },
  };
}

function base64url(bytes: Uint8Array): string {
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/**
 * The algorithm to use with a server that lists `dpop_signing_alg_values_supported`:
 * `ES256` when listed (or when nothing is listed), else `undefined` (not supported here).
 *
 * @param supported The metadata's list.
 * @returns `"ES256"` or `undefined`.
 *
 * @example
 * ```ts
 * import { dpopAlgorithm } from "./dpop.ts";
 *
 * if (dpopAlgorithm(["ES256", "RS256"]) !== "ES256" || dpopAlgorithm(["RS256"]) !== undefined) throw new Error();
 * ```
 */
export function dpopAlgorithm(supported: unknown): "ES256" | undefined {
  if (!Array.isArray(supported)) return "ES256";
  return supported.includes("ES256") ? "ES256" : undefined;
}

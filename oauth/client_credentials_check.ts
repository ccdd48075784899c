/**
 * The check of machine-to-machine credentials (a client secret, a `private_key_jwt` key or a
 * JWT bearer `assertion`) and their types: what a transport checks at once when given
 * `auth: { clientCredentials }`, apart from the token client (`client_credentials.ts`) that
 * loads with the first token request.
 *
 * @module
 */

import { checkKeys } from "../protocol/option_keys.ts";

/** Credentials of a client that acts for itself. */
export interface ClientCredentials {
  /** The `client_id`. */
  clientId: string;
  /** A `client_secret` (sent with `client_secret_basic`, or `client_secret_post`). */
  clientSecret?: string;
  /**
   * A private key for `private_key_jwt`: a PKCS#8 PEM string or a `CryptoKey`. The
   * assertion has `iss` = `sub` = the client id and `aud` = the issuer.
   */
  privateKey?: string | CryptoKey;
  /** The JWS algorithm of `privateKey` (default: the server's first listed, else `RS256`). */
  algorithm?: string;
  /** The `kid` header of the assertion. */
  keyId?: string;
  /**
   * A JWT (or a function returning a fresh one) for the JWT bearer grant, e.g. a workload
   * identity token, or an identity assertion grant from `idJagAssertion()`. With it, the
   * grant is `jwt-bearer` instead of `client_credentials`, and a refused assertion is
   * reported, never retried with another grant.
   */
  assertion?: string | AssertionSource;
  /** Overrides the token endpoint authentication method. */
  tokenEndpointAuthMethod?:
    | "client_secret_basic"
    | "client_secret_post"
    | "private_key_jwt"
    | "none";
}

/** What an assertion function is told: where the assertion will be presented, and for what. */
export interface AssertionContext {
  /** The authorization server's issuer identifier (the assertion's audience). */
  issuer: string;
  /** Its token endpoint. */
  tokenEndpoint: string;
  /** The resource the access token is for. */
  resource: string;
  /** The scopes that will be asked for, if any. */
  scope?: string;
  /** Aborted when the request is abandoned. */
  signal?: AbortSignal;
}

/** Returns a fresh assertion (a JWT) for the JWT bearer grant. */
export type AssertionSource = (context: AssertionContext) => string | Promise<string>;

/** The keys of {@linkcode ClientCredentials}. */
const CLIENT_CREDENTIALS_KEYS: readonly string[] = Object.freeze([
  "clientId",
  "clientSecret",
  "privateKey",
  "algorithm",
  "keyId",
  "assertion",
  "tokenEndpointAuthMethod",
]);

/**
 * Checks a {@linkcode ClientCredentials} value; throws `TypeError` naming `key` when bad.
 *
 * @param value The value.
 * @param key The option name for messages.
 * @param extra Other keys the object may have (an unknown key is a `TypeError` naming it).
 * @returns The value, typed.
 *
 * @example
 * ```ts
 * import { checkClientCredentials } from "./client_credentials_check.ts";
 *
 * checkClientCredentials({ clientId: "svc", clientSecret: "s" }, "auth.clientCredentials");
 * try {
 *   checkClientCredentials({ clientId: "svc" }, "auth.clientCredentials");
 *   throw new Error("accepted");
 * } catch (error) {
 *   if (!(error instanceof TypeError)) throw error;
 * }
 * ```
 */
export function checkClientCredentials(
  value: unknown,
  key: string,
  extra: readonly string[] = [],
): ClientCredentials {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new TypeError(`${key} must be an object`);
  }
  const v = checkKeys(
    value as Record<string, unknown>,
    [...CLIENT_CREDENTIALS_KEYS, ...extra],
    key,
  );
  if (typeof v.clientId !== "string" || v.clientId === "") {
    throw new TypeError(`${key}.clientId must be a non-empty string`);
  }
  if (v.clientSecret !== undefined && typeof v.clientSecret !== "string") {
    throw new TypeError(`${key}.clientSecret must be a string`);
  }
  if (
    v.privateKey !== undefined && typeof v.privateKey !== "string" &&
    !(typeof CryptoKey !== "undefined" && v.privateKey instanceof CryptoKey)
  ) {
    throw new TypeError(`${key}.privateKey must be a PEM string or a CryptoKey`);
  }
  if (
    v.assertion !== undefined && typeof v.assertion !== "string" &&
    typeof v.assertion !== "function"
  ) {
    throw new TypeError(`${key}.assertion must be a string or a function`);
  }
  for (const name of ["algorithm", "keyId", "tokenEndpointAuthMethod"]) {
    if (v[name] !== undefined && typeof v[name] !== "string") {
      throw new TypeError(`${key}.${name} must be a string`);
    }
  }
  if (v.clientSecret === undefined && v.privateKey === undefined && v.assertion === undefined) {
    throw new TypeError(`${key} needs a clientSecret, a privateKey or an assertion`);
  }
  return v as unknown as ClientCredentials;
}

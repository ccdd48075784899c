/**
 * The options of the OAuth middleware ({@linkcode OAuthOptions} for a user's login,
 * {@linkcode ClientCredentialsOptions} for a client acting for itself), the callback
 * receiver contract, and their checks (`TypeError` naming the bad key).
 *
 * @module
 */

import { checkKeys } from "../protocol/option_keys.ts";
import { checkClientCredentials, type ClientCredentials } from "./client_credentials.ts";
import type { ClientMetadata } from "./dynamic_registration.ts";
import type { PreRegisteredClient } from "./registration.ts";
import type { TokenStore } from "./store.ts";
import type { FetchLike } from "./_util.ts";

/** Whom a middleware's tokens are for: its `principal` option, else `"default"`. */
export function principalOf(options: { principal?: string }): string {
  return options.principal ?? "default";
}

/** How long a request waits for a user's login when `authorizationTimeout` is not given. */
export const DEFAULT_AUTHORIZATION_TIMEOUT = 300_000;

/** Options shared by both forms. */
export interface CommonOAuthOptions {
  /** Where tokens and registrations are kept (default: a new in-memory store). */
  store?: TokenStore;
  /** Whom the client acts for; tokens are stored per principal (default `"default"`). */
  principal?: string;
  /** Scopes to ask for instead of the discovered ones (a challenge can still add some). */
  scope?: string | string[];
  /** The `fetch` for metadata and authorization server requests (default: the wrapped one). */
  fetch?: FetchLike;
  /**
   * DPoP (RFC 9449): `"auto"` (default) binds tokens when the authorization server lists
   * `dpop_signing_alg_values_supported`; `true` always, `false` never; or a key pair to use.
   */
  dpop?: boolean | "auto" | { keyPair: CryptoKeyPair; algorithm?: string };
  /** How many step-up authorizations one request may trigger (default 2). */
  maxStepUps?: number;
  /** Refresh tokens this many ms before they expire (default 30 000). */
  expirySkew?: number;
  /** How long a whole authorization may take, in ms (default 300 000). */
  authorizationTimeout?: number;
  /** Picks one of several authorization servers the resource lists (default: the first). */
  selectAuthorizationServer?: (issuers: string[]) => string;
  /** The clock (ms since the epoch). */
  now?: () => number;
}

/** Receives the authorization response on a redirect URI (see `oauth/callback.ts`). */
export interface CallbackReceiver {
  /** Starts listening; resolves once the redirect URI accepts connections. */
  listen(options?: { signal?: AbortSignal }): Promise<CallbackListener>;
}

/** A listening {@linkcode CallbackReceiver}. */
export interface CallbackListener {
  /** The redirect URI to register and send. */
  readonly redirectUri: string;
  /** Resolves with the callback URL that carries `state` (once). */
  wait(state: string, signal?: AbortSignal): Promise<URL>;
  /** Stops listening. */
  close(): Promise<void>;
}

/** What the host is told when the user must log in. */
export interface AuthorizationUrlContext {
  /** Aborted when the authorization is abandoned (timeout, close). */
  signal: AbortSignal;
  /** The redirect URI the browser will come back to. */
  redirectUri: string;
}

/** The authorization code flow (a user logs in). */
export interface OAuthOptions extends CommonOAuthOptions {
  /**
   * Called with the authorization URL when the user must log in (open a browser with it).
   * It may return the callback URL the browser was redirected to (then nothing listens);
   * otherwise the `callback` receiver, `handleCallback()` or `authorized()` completes it.
   */
  onAuthorizationUrl: (
    url: URL,
    context: AuthorizationUrlContext,
  ) => void | string | URL | Promise<void | string | URL>;
  /** Serves the redirect (e.g. `loopbackCallback()` on 127.0.0.1); sets the redirect URI. */
  callback?: CallbackReceiver;
  /** The redirect URI when there is no `callback` (a fixed, registered one). */
  redirectUri?: string;
  /** A client registered in advance (id, secret, issuer it belongs to). */
  client?: PreRegisteredClient;
  /** A Client ID Metadata Document URL, used as `client_id` where the server supports CIMD. */
  clientMetadataUrl?: string;
  /** Names and `application_type` for dynamic registration. */
  clientMetadata?: ClientMetadata;
  /** Ask for `offline_access` when the server lists it (default `true`). */
  offlineAccess?: boolean;
}

/** The client credentials flow (a service acts for itself), or the JWT bearer grant. */
export interface ClientCredentialsOptions extends CommonOAuthOptions, ClientCredentials {
  /** The issuer the credentials belong to; any other authorization server is refused. */
  issuer?: string;
}

/** The keys of {@linkcode CommonOAuthOptions}. */
const COMMON_KEYS = [
  "store",
  "principal",
  "scope",
  "fetch",
  "dpop",
  "maxStepUps",
  "expirySkew",
  "authorizationTimeout",
  "selectAuthorizationServer",
  "now",
];

const OAUTH_KEYS = [
  ...COMMON_KEYS,
  "onAuthorizationUrl",
  "callback",
  "redirectUri",
  "client",
  "clientMetadataUrl",
  "clientMetadata",
  "offlineAccess",
];

const PRE_REGISTERED_KEYS = ["clientId", "clientSecret", "issuer", "tokenEndpointAuthMethod"];

const CLIENT_METADATA_KEYS = [
  "clientName",
  "clientUri",
  "logoUri",
  "applicationType",
  "softwareId",
  "softwareVersion",
];

function plainObject(value: unknown, key: string): Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new TypeError(`${key} must be an object`);
  }
  return value as Record<string, unknown>;
}

function optionalString(v: Record<string, unknown>, name: string, key: string): void {
  if (v[name] !== undefined && (typeof v[name] !== "string" || v[name] === "")) {
    throw new TypeError(`${key}.${name} must be a non-empty string`);
  }
}

function optionalFunction(v: Record<string, unknown>, name: string, key: string): void {
  if (v[name] !== undefined && typeof v[name] !== "function") {
    throw new TypeError(`${key}.${name} must be a function`);
  }
}

function url(v: Record<string, unknown>, name: string, key: string): void {
  if (v[name] === undefined) return;
  try {
    new URL(String(v[name]));
  } catch {
    throw new TypeError(`${key}.${name} must be an absolute URL`);
  }
  if (typeof v[name] !== "string") throw new TypeError(`${key}.${name} must be a string`);
}

function checkCommon(v: Record<string, unknown>, key: string): void {
  if (v.store !== undefined) {
    const store = plainObject(v.store, `${key}.store`);
    for (
      const method of [
        "getTokens",
        "setTokens",
        "deleteTokens",
        "getClient",
        "setClient",
        "deleteClient",
        "getPending",
        "setPending",
        "deletePending",
      ]
    ) {
      if (typeof store[method] !== "function") {
        throw new TypeError(`${key}.store.${method} must be a function (a TokenStore)`);
      }
    }
  }
  optionalString(v, "principal", key);
  if (
    v.scope !== undefined && typeof v.scope !== "string" &&
    !(Array.isArray(v.scope) && v.scope.every((s) => typeof s === "string"))
  ) {
    throw new TypeError(`${key}.scope must be a string or an array of strings`);
  }
  optionalFunction(v, "fetch", key);
  optionalFunction(v, "selectAuthorizationServer", key);
  optionalFunction(v, "now", key);
  if (
    v.dpop !== undefined && typeof v.dpop !== "boolean" && v.dpop !== "auto" &&
    !(typeof v.dpop === "object" && v.dpop !== null &&
      typeof (v.dpop as { keyPair?: unknown }).keyPair === "object")
  ) {
    throw new TypeError(`${key}.dpop must be true, false, "auto" or { keyPair }`);
  }
  checkKeys(v.dpop, ["keyPair", "algorithm"], `${key}.dpop`);
  for (const name of ["maxStepUps", "authorizationTimeout", "expirySkew"]) {
    const n = v[name];
    if (n !== undefined && (typeof n !== "number" || !Number.isInteger(n) || n < 0)) {
      throw new TypeError(`${key}.${name} must be a non-negative integer`);
    }
  }
}

/**
 * Checks {@linkcode OAuthOptions}.
 *
 * @param value The value.
 * @param key The option name for messages (e.g. `"options.auth.oauth"`).
 * @returns The value, typed.
 * @throws {TypeError} Naming the bad key.
 *
 * @example
 * ```ts
 * import { checkOAuthOptions } from "./options.ts";
 *
 * checkOAuthOptions({ redirectUri: "http://127.0.0.1:8765/callback", onAuthorizationUrl: () => {} }, "oauth");
 * try {
 *   checkOAuthOptions({ onAuthorizationUrl: () => {} }, "oauth");
 *   throw new Error("accepted");
 * } catch (error) {
 *   if (!(error instanceof TypeError) || !error.message.includes("redirectUri")) throw error;
 * }
 * ```
 */
export function checkOAuthOptions(value: unknown, key: string): OAuthOptions {
  const v = checkKeys(plainObject(value, key), OAUTH_KEYS, key);
  checkCommon(v, key);
  if (typeof v.onAuthorizationUrl !== "function") {
    throw new TypeError(`${key}.onAuthorizationUrl must be a function (it is given the login URL)`);
  }
  if (v.callback !== undefined) {
    const callback = plainObject(v.callback, `${key}.callback`);
    if (typeof callback.listen !== "function") {
      throw new TypeError(`${key}.callback must be a callback receiver (e.g. loopbackCallback())`);
    }
  }
  url(v, "redirectUri", key);
  if (v.callback === undefined && v.redirectUri === undefined) {
    throw new TypeError(`${key} needs a redirectUri or a callback receiver`);
  }
  url(v, "clientMetadataUrl", key);
  if (v.client !== undefined) {
    const client = checkKeys(
      plainObject(v.client, `${key}.client`),
      PRE_REGISTERED_KEYS,
      `${key}.client`,
    );
    if (typeof client.clientId !== "string" || client.clientId === "") {
      throw new TypeError(`${key}.client.clientId must be a non-empty string`);
    }
    optionalString(client, "clientSecret", `${key}.client`);
    optionalString(client, "issuer", `${key}.client`);
    const method = client.tokenEndpointAuthMethod;
    if (
      method !== undefined && method !== "client_secret_basic" &&
      method !== "client_secret_post" && method !== "none"
    ) {
      throw new TypeError(
        `${key}.client.tokenEndpointAuthMethod must be client_secret_basic, client_secret_post or none`,
      );
    }
  }
  if (v.clientMetadata !== undefined) {
    const metadata = plainObject(v.clientMetadata, `${key}.clientMetadata`);
    checkKeys(metadata, CLIENT_METADATA_KEYS, `${key}.clientMetadata`);
  }
  if (v.offlineAccess !== undefined && typeof v.offlineAccess !== "boolean") {
    throw new TypeError(`${key}.offlineAccess must be a boolean`);
  }
  return v as unknown as OAuthOptions;
}

/**
 * Checks {@linkcode ClientCredentialsOptions}.
 *
 * @param value The value.
 * @param key The option name for messages.
 * @returns The value, typed.
 * @throws {TypeError} Naming the bad key.
 *
 * @example
 * ```ts
 * import { checkClientCredentialsOptions } from "./options.ts";
 *
 * checkClientCredentialsOptions({ clientId: "svc", clientSecret: "s", scope: "mcp:read" }, "cc");
 * ```
 */
export function checkClientCredentialsOptions(
  value: unknown,
  key: string,
): ClientCredentialsOptions {
  const v = plainObject(value, key);
  checkClientCredentials(v, key, [...COMMON_KEYS, "issuer"]); // also checks the keys
  checkCommon(v, key);
  optionalString(v, "issuer", key);
  return v as unknown as ClientCredentialsOptions;
}

/** Scopes from a `scope` option. */
export function scopeList(scope: string | string[] | undefined): string[] | undefined {
  if (scope === undefined) return undefined;
  const list = (Array.isArray(scope) ? scope : scope.split(/\s+/)).filter((s) => s !== "");
  return list.length > 0 ? [...new Set(list)] : undefined;
}

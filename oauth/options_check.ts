/**
 * The checks of the OAuth options: {@linkcode checkOAuthOptions},
 * {@linkcode checkClientCredentialsOptions} and {@linkcode checkClientCredentials} (the
 * machine-to-machine credentials: a client secret, a `private_key_jwt` key or a JWT bearer
 * `assertion`) throw a `TypeError` naming the bad key, unknown keys included. A transport
 * checks its `auth` with them at once; the token clients load on first use.
 *
 * @module
 */

import { checkKeys } from "../protocol/option_keys.ts";
import {
  type ClientCredentials,
  type ClientCredentialsOptions,
  flowOf,
  type OAuthOptions,
} from "./options.ts";

/** The keys of {@linkcode CommonOAuthOptions}. */
const COMMON_KEYS = [
  "store",
  "principal",
  "profile",
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
  "flow",
  "onDeviceCode",
  "expectSubject",
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
  optionalString(v, "profile", key);
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
 * import { checkOAuthOptions } from "./options_check.ts";
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
  if (v.flow !== undefined && v.flow !== "auto" && v.flow !== "browser" && v.flow !== "device") {
    throw new TypeError(`${key}.flow must be "auto", "browser" or "device"`);
  }
  optionalFunction(v, "onDeviceCode", key);
  optionalString(v, "expectSubject", key);
  const flow = flowOf(v);
  if (flow !== "browser" && typeof v.onDeviceCode !== "function") {
    throw new TypeError(`${key}.onDeviceCode must be a function (it is given the device code)`);
  }
  if (flow === "device") {
    if (v.onAuthorizationUrl !== undefined) optionalFunction(v, "onAuthorizationUrl", key);
    return checkBrowserParts(v, key, false);
  }
  if (typeof v.onAuthorizationUrl !== "function") {
    throw new TypeError(`${key}.onAuthorizationUrl must be a function (it is given the login URL)`);
  }
  return checkBrowserParts(v, key, flow === "browser");
}

function checkBrowserParts(
  v: Record<string, unknown>,
  key: string,
  needsRedirect: boolean,
): OAuthOptions {
  if (v.callback !== undefined) {
    const callback = plainObject(v.callback, `${key}.callback`);
    if (typeof callback.listen !== "function") {
      throw new TypeError(`${key}.callback must be a callback receiver (e.g. loopbackCallback())`);
    }
  }
  url(v, "redirectUri", key);
  if (needsRedirect && v.callback === undefined && v.redirectUri === undefined) {
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
 * import { checkClientCredentialsOptions } from "./options_check.ts";
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
 * import { checkClientCredentials } from "./options_check.ts";
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

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

/** The methods of a `TokenStore`. */
const STORE_METHODS = ["get", "set", "delete"].flatMap((verb) =>
  ["Tokens", "Client", "Pending"].map((what) => verb + what)
);

/** What a member's value must pass, and the words the error says it must be. */
type Rule = [test: (value: unknown) => boolean, what: string];

const nonEmpty: Rule = [(v) => typeof v === "string" && v !== "", "a non-empty string"];
const aString: Rule = [(v) => typeof v === "string", "a string"];
const aFunction: Rule = [(v) => typeof v === "function", "a function"];
const aBoolean: Rule = [(v) => typeof v === "boolean", "a boolean"];
const count: Rule = [(v) => Number.isInteger(v) && (v as number) >= 0, "a non-negative integer"];

/**
 * Checks the members of `v` that are given against their rules; throws
 * `TypeError("<key>.<member> must be <what>")` at the first that fails.
 */
function members(v: Record<string, unknown>, key: string, rules: Record<string, Rule>): void {
  for (const [name, [test, what]] of Object.entries(rules)) {
    if (v[name] !== undefined && !test(v[name])) {
      throw new TypeError(`${key}.${name} must be ${what}`);
    }
  }
}

function plainObject(value: unknown, key: string): Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new TypeError(`${key} must be an object`);
  }
  return value as Record<string, unknown>;
}

function url(v: Record<string, unknown>, name: string, key: string): void {
  if (v[name] === undefined) return;
  try {
    new URL(String(v[name]));
  } catch {
    throw new TypeError(`${key}.${name} must be an absolute URL`);
  }
  members(v, key, { [name]: aString });
}

function checkCommon(v: Record<string, unknown>, key: string): void {
  if (v.store !== undefined) {
    const store = plainObject(v.store, `${key}.store`);
    for (const method of STORE_METHODS) {
      if (typeof store[method] !== "function") {
        throw new TypeError(`${key}.store.${method} must be a function (a TokenStore)`);
      }
    }
  }
  members(v, key, {
    principal: nonEmpty,
    profile: nonEmpty,
    scope: [
      (s) => typeof s === "string" || (Array.isArray(s) && s.every((x) => typeof x === "string")),
      "a string or an array of strings",
    ],
    fetch: aFunction,
    selectAuthorizationServer: aFunction,
    now: aFunction,
    dpop: [
      (d) =>
        typeof d === "boolean" || d === "auto" ||
        (typeof d === "object" && d !== null &&
          typeof (d as { keyPair?: unknown }).keyPair === "object"),
      'true, false, "auto" or { keyPair }',
    ],
  });
  checkKeys(v.dpop, ["keyPair", "algorithm"], `${key}.dpop`);
  members(v, key, { maxStepUps: count, authorizationTimeout: count, expirySkew: count });
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
  members(v, key, {
    flow: [
      (f) => f === "auto" || f === "browser" || f === "device",
      '"auto", "browser" or "device"',
    ],
    onDeviceCode: aFunction,
    expectSubject: nonEmpty,
  });
  const flow = flowOf(v);
  if (flow !== "browser" && typeof v.onDeviceCode !== "function") {
    throw new TypeError(`${key}.onDeviceCode must be a function (it is given the device code)`);
  }
  if (flow === "device") {
    members(v, key, { onAuthorizationUrl: aFunction });
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
    const where = `${key}.client`;
    const client = checkKeys(plainObject(v.client, where), PRE_REGISTERED_KEYS, where);
    // A missing clientId fails as an empty one.
    members({ clientId: client.clientId ?? "" }, where, { clientId: nonEmpty });
    members(client, where, {
      clientSecret: nonEmpty,
      issuer: nonEmpty,
      tokenEndpointAuthMethod: [
        (m) => ["client_secret_basic", "client_secret_post", "none"].includes(m as string),
        "client_secret_basic, client_secret_post or none",
      ],
    });
  }
  if (v.clientMetadata !== undefined) {
    const metadata = plainObject(v.clientMetadata, `${key}.clientMetadata`);
    checkKeys(metadata, CLIENT_METADATA_KEYS, `${key}.clientMetadata`);
  }
  members(v, key, { offlineAccess: aBoolean });
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
  members(v, key, { issuer: nonEmpty });
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
  const v = checkKeys(plainObject(value, key), [...CLIENT_CREDENTIALS_KEYS, ...extra], key);
  members({ clientId: v.clientId ?? "" }, key, { clientId: nonEmpty }); // required
  members(v, key, {
    clientSecret: aString,
    privateKey: [
      (k) => typeof k === "string" || (typeof CryptoKey !== "undefined" && k instanceof CryptoKey),
      "a PEM string or a CryptoKey",
    ],
    assertion: [(a) => typeof a === "string" || typeof a === "function", "a string or a function"],
    algorithm: aString,
    keyId: aString,
    tokenEndpointAuthMethod: aString,
  });
  if (v.clientSecret === undefined && v.privateKey === undefined && v.assertion === undefined) {
    throw new TypeError(`${key} needs a clientSecret, a privateKey or an assertion`);
  }
  return v as unknown as ClientCredentials;
}

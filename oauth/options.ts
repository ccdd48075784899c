/**
 * The options of the OAuth middleware ({@linkcode OAuthOptions} for a user's login,
 * {@linkcode ClientCredentialsOptions} for a client acting for itself, with its
 * {@linkcode ClientCredentials}), the callback receiver contract; their checks are in
 * `options_check.ts`.
 *
 * @module
 */

import type { ClientMetadata } from "./dynamic_registration.ts";
import type { PreRegisteredClient } from "./registration.ts";
import type { TokenStore } from "./store.ts";
import type { FetchLike } from "./_util.ts";

/** The flow a login uses when `flow` is not given. */
export function flowOf(options: { flow?: LoginFlow; onDeviceCode?: unknown }): LoginFlow {
  return options.flow ?? (options.onDeviceCode === undefined ? "browser" : "auto");
}

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
  /**
   * The account profile (`"work"`, `"personal"`): tokens are kept per profile, and two
   * profiles on one server never share a token, a connection or a private cached result.
   */
  profile?: string;
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
  /**
   * Why no browser can come back to this receiver here (no display, an SSH session, CI),
   * or `undefined` when one can; `flow: "auto"` then picks the device flow.
   */
  browserUnavailable?(): string | undefined;
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

/** How a user logs in: `"browser"` (the authorization code flow), `"device"` (RFC 8628). */
export type LoginFlow = "auto" | "browser" | "device";

/** What the user is shown to log in with the device flow (RFC 8628). */
export interface DeviceCode {
  /** The code the user enters on the verification page. */
  userCode: string;
  /** The page where the user enters the code. */
  verificationUri: string;
  /** The page with the code already in it, when the server gives one. */
  verificationUriComplete?: string;
  /** Seconds until the code expires. */
  expiresIn: number;
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
   * How the user logs in: `"browser"` (the authorization code flow with PKCE), `"device"`
   * (the device flow, RFC 8628: a code the user enters on another device), or `"auto"`:
   * the device flow when the authorization server offers it and no browser can be used here
   * (no display, an SSH session, `CI` set, or no loopback callback), else the browser.
   * Default: `"auto"` when `onDeviceCode` is given, else `"browser"`.
   */
  flow?: LoginFlow;
  /** Called once per device login with the code to show the user (needed by the device flow). */
  onDeviceCode?: (code: DeviceCode, context: { signal: AbortSignal }) => void | Promise<void>;
  /**
   * The account this profile is bound to (the `sub` of the tokens): a login that returns
   * another account fails with `identity_mismatch` and keeps nothing.
   */
  expectSubject?: string;
  /**
   * Called with the authorization URL when the user must log in (open a browser with it).
   * It may return the callback URL the browser was redirected to (then nothing listens);
   * otherwise the `callback` receiver, `handleCallback()` or `authorized()` completes it.
   * Needed by the browser flow.
   */
  onAuthorizationUrl?: (
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

/** Scopes from a `scope` option. */
export function scopeList(scope: string | string[] | undefined): string[] | undefined {
  if (scope === undefined) return undefined;
  const list = (Array.isArray(scope) ? scope : scope.split(/\s+/)).filter((s) => s !== "");
  return list.length > 0 ? [...new Set(list)] : undefined;
}

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

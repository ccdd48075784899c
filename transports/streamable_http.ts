/**
 * The Streamable HTTP transport, in both eras: {@linkcode streamableHttp}.
 *
 * Modern (2026-07-28) messages are stateless POSTs carrying `MCP-Protocol-Version`,
 * `Mcp-Method`, `Mcp-Name` and the tool's `Mcp-Param-*` headers. Legacy (2025-11-25,
 * 2025-06-18) links keep the `Mcp-Session-Id`, listen on the GET stream, resume streams
 * with `Last-Event-ID`, and `DELETE` the session on close. Answers come as JSON or as an
 * event stream; redirects are followed only within the endpoint's origin.
 *
 * @module
 */

import type { FetchLike } from "./_http.ts";
import { McpError } from "../protocol/errors.ts";
import { checkKeys } from "../protocol/option_keys.ts";
import type { TokenObserver } from "../protocol/token_events.ts";
import { DEFAULT_AUTHORIZATION_TIMEOUT } from "../oauth/options.ts";
import type { AuthStatus } from "../oauth/auth_status.ts";
import {
  checkAuth,
  endpoint,
  type HttpAuth,
  KEYS,
  MiB,
  oauthOptionsOf,
  positiveInteger,
  staticHeaders,
  type TransportSecrets,
  withStore,
} from "./_http_options.ts";
import type { HttpCore, HttpShell } from "./_http_core.ts";
import type { Transport, TransportLink, TransportSink } from "./transport.ts";

export type { FetchLike } from "./_http.ts";
export type { HttpAuth } from "./_http_options.ts";

/**
 * Options for {@linkcode streamableHttp}.
 *
 * @example Credentials, an extra header and tighter limits
 * ```ts
 * import { streamableHttp, type StreamableHttpOptions } from "./streamable_http.ts";
 *
 * const options: StreamableHttpOptions = {
 *   headers: { "X-Team": "docs" },
 *   auth: () => "a-fresh-token",
 *   credentialId: "alice",
 *   maxResponseBytes: 1024 * 1024,
 *   maxEventBytes: 256 * 1024,
 * };
 * const transport = streamableHttp("https://mcp.example.com/mcp", options);
 * if (transport.credentialId !== "alice") throw new Error("unexpected");
 * ```
 */
export interface StreamableHttpOptions {
  /**
   * Headers sent with every request (e.g. an API key header). The protocol's own headers
   * (`Content-Type`, `Accept`, `Mcp-*`, and `Authorization` when `auth` is set) win.
   */
  headers?: HeadersInit;
  /**
   * Credentials: `{ bearer }` for a fixed token, a function called before each request (it
   * may refresh and return a new token), `{ oauth }` for OAuth 2.1 with a user's login, or
   * `{ clientCredentials }` for a client acting for itself. The OAuth forms wrap `fetch`:
   * a 401 runs discovery and authorization (or a refresh) and the request is retried, a
   * 403 `insufficient_scope` steps up.
   */
  auth?: HttpAuth;
  /**
   * Names whose tokens an `auth` function or a custom `fetch` carries (e.g. a user id), so
   * results the server marked private can be cached per credential. Without it, an `auth`
   * function or a custom `fetch` has no known identity (private results are neither kept nor
   * served), except a `fetch` made by the OAuth middleware; the OAuth forms are named by their
   * tokens' issuer, client and subject (see `cache_target.ts`).
   */
  credentialId?: string;
  /** The `fetch` to use (default `globalThis.fetch`), e.g. a Hono app's `app.fetch`. */
  fetch?: FetchLike;
  /** The largest response body read, in bytes (default 16 MiB). */
  maxResponseBytes?: number;
  /** The largest single event on an event stream, in bytes (default 4 MiB). */
  maxEventBytes?: number;
  /** How many same-origin redirects one request may follow (default 5). */
  maxRedirects?: number;
  /**
   * The wait before reconnecting a stream when the server sent no `retry:` (default 1000 ms).
   * A server's `retry:` is honoured between 100 ms (or this, when shorter) and the client's
   * `retry.maxRetryAfter`; reconnects that bring no message back off from there (up to 30 s).
   */
  reconnectDelay?: number;
  /**
   * Reconnects of a stream in a row without any event before giving up (default 5): failed
   * ones, and on the GET stream those that ended cleanly without an event.
   */
  maxReconnects?: number;
  /** How long `close()` waits for the session `DELETE` (default 2000 ms). */
  closeTimeout?: number;
}

/**
 * Options for {@linkcode StreamableHttpTransport.setAuth}.
 *
 * @example
 * ```ts
 * import { type SetAuthOptions, streamableHttp } from "./streamable_http.ts";
 *
 * const transport = streamableHttp("https://mcp.example.com/mcp");
 * const options: SetAuthOptions = { credentialId: "bob" };
 * transport.setAuth(() => "bobs-token", options);
 * if (transport.credentialId !== "bob") throw new Error("unexpected");
 * ```
 */
export interface SetAuthOptions {
  /** Names whose tokens an `auth` function returns (see {@linkcode StreamableHttpOptions}). */
  credentialId?: string;
}

/**
 * The Streamable HTTP {@linkcode Transport}, with its endpoint and credential controls.
 *
 * @example Swap the credentials
 * ```ts
 * import { streamableHttp, type StreamableHttpTransport } from "./streamable_http.ts";
 *
 * const transport: StreamableHttpTransport = streamableHttp("https://mcp.example.com/mcp", {
 *   auth: { bearer: "old-token" },
 * });
 * transport.setAuth({ bearer: "new-token" });
 * if (transport.kind !== "http" || transport.url.pathname !== "/mcp") throw new Error();
 * ```
 */
export interface StreamableHttpTransport extends Transport {
  /** Always `"http"`. */
  readonly kind: "http";
  /** The MCP endpoint. */
  readonly url: URL;
  /** The current credential id (see {@linkcode StreamableHttpOptions.credentialId}). */
  readonly credentialId: string | undefined;
  /**
   * Replaces the credentials sent from the next request on, on every open link. The
   * client's `setAuth()` calls this and then reconnects.
   *
   * @throws {TypeError} When `auth` is not one of the accepted forms.
   */
  setAuth(auth: HttpAuth, options?: SetAuthOptions): void;
  /**
   * OAuth forms: tells requests waiting for a user's login that the host stored new tokens
   * in the token store, so they check it now.
   *
   * @throws {McpError} kind `auth`, reason `oauth_not_configured`, for the other forms.
   */
  authorized(): void;
  /**
   * OAuth forms: completes a login with the URL the browser was redirected to (checks it,
   * exchanges the code, stores the tokens); requests waiting for it resume.
   *
   * @throws {McpError} kind `auth`: `oauth_not_configured` for the other forms, else the
   *   reason the response was refused (`iss_mismatch`, `state_mismatch`, `unknown_state`, …).
   */
  handleCallback(callback: string | URL): Promise<void>;
  /**
   * Where a user's login stands: `"none"` without credentials or before OAuth tokens,
   * `"ok"`, `"pending"` (with the URL or device code to act on), `"needs_reauth"`.
   */
  authStatus(): AuthStatus;
  /**
   * OAuth forms: starts a new login (see `OAuthMiddleware.login`); this is how a client
   * leaves `needs_reauth`.
   *
   * @throws {McpError} kind `auth`, reason `oauth_not_configured`, for the other forms.
   */
  login(options?: { signal?: AbortSignal }): Promise<void>;
  /** The OAuth profile the credentials belong to, when one is named. */
  readonly profile: string | undefined;
}

/** Holds `value` on `holder`, not enumerable, under the registered symbol `@conduit/mcp.<key>`. */
function hold<T extends object>(holder: T, key: string, value: unknown): T {
  return Object.defineProperty(holder, Symbol.for(`@conduit/mcp.${key}`), { value });
}

/** How many configured credentials wait for the secrets (as many as those keep pinned). */
const MAX_PENDING = 32;

/**
 * A Streamable HTTP transport for `url`: hand it to `createClient({ transport })` or open
 * links yourself. Options are checked at once; a bad one throws `TypeError` naming it.
 *
 * Errors from a link are `McpError`s: kind `auth` for 401/403 (with the status and the
 * `WWW-Authenticate` challenge, never the token), kind `transport` with reason
 * `http_status` for 408/429/5xx (`data` holds `status` and `retryAfterMs`),
 * `session_expired` for a legacy session the server lost (a 404, or a 400 or `-32001` that
 * says so, to a request that carried `Mcp-Session-Id`), `redirect_refused` for a redirect to
 * another origin, `network` when the server cannot be reached, `permission_denied` (the
 * runtime refused network access) and `tls` (the TLS handshake failed) when it never can,
 * `dependency_missing` when the event-stream parser does not load, and kind `protocol` for
 * bodies that are not JSON-RPC or are too large.
 *
 * No credential the transport holds reaches an error, a warning or a message: the bearer
 * token, OAuth access and refresh tokens, client secrets and keys, authorization codes
 * and DPoP proofs are replaced by `[redacted]` wherever the server writes them back (a
 * challenge, a JSON-RPC error, a body, an event stream, a token endpoint's answer).
 *
 * @param url The MCP endpoint, e.g. `https://example.com/mcp`.
 * @param options Headers, credentials, `fetch` and limits.
 * @returns The transport.
 *
 * @example Answer in-process with an injected `fetch`
 * ```ts
 * import { streamableHttp } from "./streamable_http.ts";
 * import type { JsonRpcMessage } from "../protocol/jsonrpc.ts";
 *
 * const transport = streamableHttp("https://mcp.example.com/mcp", {
 *   auth: { bearer: "token-1" },
 *   fetch: async (input, init) => {
 *     const request = new Request(input, init);
 *     const message = await request.json();
 *     if (request.headers.get("authorization") !== "Bearer token-1") throw new Error("no token");
 *     return Response.json({ jsonrpc: "2.0", id: message.id, result: {} });
 *   },
 * });
 * const received: JsonRpcMessage[] = [];
 * const link = await transport.open({ message: (m) => received.push(m), closed() {} });
 * await link.send({ jsonrpc: "2.0", id: 1, method: "ping" });
 * await link.close();
 * if (received.length !== 1) throw new Error("expected the response");
 * ```
 */
export function streamableHttp(
  url: string | URL,
  options: StreamableHttpOptions = {},
): StreamableHttpTransport {
  if (typeof options !== "object" || options === null) {
    throw new TypeError("options must be an object");
  }
  checkKeys(options, KEYS, "streamableHttp options");
  const target = endpoint(url);
  let auth = checkAuth(options.auth, "options.auth");
  if (options.credentialId !== undefined && typeof options.credentialId !== "string") {
    throw new TypeError("options.credentialId must be a string");
  }
  let credentialId = options.credentialId;
  if (options.fetch !== undefined && typeof options.fetch !== "function") {
    throw new TypeError("options.fetch must be a function");
  }
  const headers = staticHeaders(options.headers);
  // Every credential the transport holds or sends is kept out of what the server writes. Its
  // secrets are made (`_http_secrets.ts`, which loads with the core) when it first opens, or
  // when a tracer asks for them (`heldSecrets`), before anything is sent or written: until then
  // the configured credentials wait here, each one `auth` has held.
  let secrets: TransportSecrets | undefined;
  let making: Promise<TransportSecrets> | undefined;
  const pending: HttpAuth[] = [auth];
  const pin = (next: HttpAuth) => {
    if (secrets !== undefined) secrets.pin(next);
    else if (pending.push(next) > MAX_PENDING) pending.shift();
  };
  const coreModule = () => import("./_http_core.ts");
  const makeSecrets = () =>
    making ??= coreModule().then(({ madeSecrets }) =>
      secrets ??= madeSecrets(headers, options.fetch, pending.splice(0))
    );
  const observers = new Set<TokenObserver>();
  const shell: Omit<HttpShell, "secrets" | "forward"> = {
    url: target,
    headers,
    customFetch: options.fetch,
    auth: () => auth,
    credentialId: () => credentialId,
    limits: {
      maxResponseBytes: positiveInteger(options.maxResponseBytes, "maxResponseBytes", 16 * MiB),
      maxEventBytes: positiveInteger(options.maxEventBytes, "maxEventBytes", 4 * MiB),
      maxRedirects: positiveInteger(options.maxRedirects, "maxRedirects", 5, 0),
      reconnectDelay: positiveInteger(options.reconnectDelay, "reconnectDelay", 1000, 0),
      maxReconnects: positiveInteger(options.maxReconnects, "maxReconnects", 5, 0),
      closeTimeout: positiveInteger(options.closeTimeout, "closeTimeout", 2000),
    },
  };
  let core: HttpCore | undefined;
  let loading: Promise<HttpCore> | undefined;
  const load = (): Promise<HttpCore> =>
    loading ??= Promise.all([coreModule(), makeSecrets()]).then((
      [{ httpCore, forwardTokens }, made],
    ) => core ??= httpCore({ ...shell, secrets: made, forward: forwardTokens(observers) }));
  const oauthForm = () => oauthOptionsOf(auth) !== undefined;
  const notOAuth = () =>
    new McpError("The transport's credentials are not an OAuth form", {
      kind: "auth",
      reason: "oauth_not_configured",
    });
  const transport: StreamableHttpTransport = {
    kind: "http",
    get url(): URL {
      return new URL(target.href);
    },
    get credentialId(): string | undefined {
      return credentialId;
    },
    get profile(): string | undefined {
      return oauthOptionsOf(auth)?.profile;
    },
    authStatus(): AuthStatus {
      const oauth = core?.oauth();
      if (oauth !== undefined) return oauth.authStatus();
      // Before its middleware loads, an OAuth form has no tokens yet.
      return { state: auth === undefined || oauthForm() ? "none" : "ok" };
    },
    async login(loginOptions?: { signal?: AbortSignal }): Promise<void> {
      if (!oauthForm()) throw notOAuth();
      await (await load()).oauth()!.login(loginOptions);
    },
    get authTimeout(): number | undefined {
      return typeof auth === "object" && auth !== null && "oauth" in auth
        ? auth.oauth.authorizationTimeout ?? DEFAULT_AUTHORIZATION_TIMEOUT
        : undefined;
    },
    setAuth(next: HttpAuth, setOptions: SetAuthOptions = {}): void {
      const checked = checkAuth(next, "auth");
      checkKeys(setOptions, ["credentialId"], "setAuth options");
      if (setOptions.credentialId !== undefined && typeof setOptions.credentialId !== "string") {
        throw new TypeError("options.credentialId must be a string");
      }
      // As the core does once loaded: new OAuth credentials without a token store keep the
      // store the previous OAuth ones used.
      auth = core === undefined ? withStore(checked, oauthOptionsOf(auth)?.store) : checked;
      pin(auth);
      core?.setAuth(auth);
      credentialId = setOptions.credentialId;
    },
    authorized(): void {
      if (!oauthForm()) throw notOAuth();
      // Before its middleware loads, no login waits to be woken.
      core?.oauth()?.authorized();
    },
    async handleCallback(callback: string | URL): Promise<void> {
      if (!oauthForm()) throw notOAuth();
      await (await load()).oauth()!.handleCallback(callback);
    },
    async open(sink: TransportSink): Promise<TransportLink> {
      // The link (requests, answers, event streams, the OAuth middleware) loads when the
      // transport first opens: a client of another transport never loads it.
      return (await load()).open(sink);
    },
    cacheTarget: async (wants) => (await load()).cacheTarget(wants),
  };
  // Held out of sight as `holdSecrets` (what makes the secrets) and `holdTokenObservers` hold
  // them, under the same registered symbols, without loading their modules at start.
  hold(transport, "secrets", makeSecrets);
  return hold(transport, "token-observers", observers);
}

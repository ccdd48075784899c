/**
 * Private: what runs a Streamable HTTP transport, loaded when it first opens (or first needs
 * its credentials' code: a login, a callback, its cache target). `streamable_http.ts` makes
 * the transport at once (options checked, secrets set up) and keeps its credentials; this
 * builds the `fetch` it sends with (the recording `fetch`, the OAuth middleware for the
 * OAuth forms), the link's settings and the cache target, so a client of another transport
 * never loads any of it.
 *
 * @module
 */

import type { CacheTarget, CacheTargetWants } from "../cache/digest.ts";
import { recordingFetch } from "../oauth/recording_fetch.ts";
import type { LazyOAuthMiddleware } from "../oauth/lazy_middleware.ts";
import { type TokenObserver, tokenObserversOf } from "../protocol/token_events.ts";
import type { FetchLike } from "./_http.ts";
import { authorizedFetch, type HttpAuth } from "./_http_auth.ts";
import type { TransportSecrets } from "./_http_options.ts";
import { openLink } from "./_http_link.ts";
import type { LinkConfig } from "./_http_request.ts";
import { guardLink, guardSink } from "./_redact.ts";
import { toolHeaders } from "./_tool_headers.ts";
import { httpCacheTarget } from "./cache_target.ts";
import type { TransportLink, TransportSink } from "./transport.ts";

// The transport's secrets load with it, in one lazy load (a tracer asking for them first loads
// the core a little before the first open).
export { forwardTokens, madeSecrets } from "./_http_secrets.ts";

/** What the transport's shell hands its core: checked options and live credentials. */
export interface HttpShell {
  /** The MCP endpoint. */
  url: URL;
  /** The static headers (lower-case names). */
  headers: Record<string, string>;
  /** The `fetch` option, when one was given. */
  customFetch: FetchLike | undefined;
  /** The transport's secrets (every link's reports pass through them). */
  secrets: TransportSecrets;
  /** Hands token fetches on to whoever follows the transport's. */
  forward: TokenObserver;
  /** The current credentials. */
  auth(): HttpAuth;
  /** The current credential id. */
  credentialId(): string | undefined;
  /** The checked limits. */
  limits: Pick<
    LinkConfig,
    | "maxResponseBytes"
    | "maxEventBytes"
    | "maxRedirects"
    | "reconnectDelay"
    | "maxReconnects"
    | "closeTimeout"
  >;
}

/** A running Streamable HTTP transport's core. */
export interface HttpCore {
  /** The OAuth middleware of the current credentials (OAuth forms). */
  oauth(): LazyOAuthMiddleware | undefined;
  /** Sends with `auth` from the next request on (already checked and pinned). */
  setAuth(auth: HttpAuth): void;
  /** Opens a link. */
  open(sink: TransportSink): TransportLink;
  /** The cache target of the endpoint and the current credentials. */
  cacheTarget(wants?: CacheTargetWants): Promise<CacheTarget>;
}

/**
 * The core of a transport whose shell is `shell`.
 *
 * @param shell The shell's checked options and live credentials.
 * @returns The core.
 * @example
 * ```ts
 * import { httpCore } from "./_http_core.ts";
 * import { transportSecrets } from "./_http_options.ts";
 *
 * const secrets = transportSecrets({}, undefined);
 * const core = httpCore({
 *   url: new URL("https://mcp.example.com/mcp"),
 *   headers: {},
 *   customFetch: undefined,
 *   secrets,
 *   forward: () => undefined,
 *   auth: () => ({ bearer: "token-1" }),
 *   credentialId: () => undefined,
 *   limits: {
 *     maxResponseBytes: 1 << 20,
 *     maxEventBytes: 1 << 20,
 *     maxRedirects: 5,
 *     reconnectDelay: 1000,
 *     maxReconnects: 5,
 *     closeTimeout: 2000,
 *   },
 * });
 * if (core.oauth() !== undefined) throw new Error("a bearer token has no OAuth middleware");
 * ```
 */
export function httpCore(shell: HttpShell): HttpCore {
  const { secrets, forward } = shell;
  const fetchFn: FetchLike = recordingFetch(
    shell.customFetch ?? ((input, init) => globalThis.fetch(input, init)),
    secrets,
  );
  let current = authorizedFetch(shell.auth(), fetchFn);
  secrets.includeFetch(current.fetch);
  // Whoever follows the transport's token fetches hears its middleware's, whichever it is.
  tokenObserversOf(shell.customFetch)?.add(forward);
  tokenObserversOf(current.fetch)?.add(forward);
  const config: LinkConfig = {
    url: shell.url,
    fetch: (input, init) => current.fetch(input, init),
    headers: shell.headers,
    auth: shell.auth,
    tools: toolHeaders(),
    ...shell.limits,
  };
  return {
    oauth: () => current.oauth,
    setAuth(auth: HttpAuth): void {
      current = authorizedFetch(auth, fetchFn, current);
      secrets.includeFetch(current.fetch);
      tokenObserversOf(current.fetch)?.add(forward);
    },
    open: (sink) => guardLink(openLink(config, guardSink(sink, secrets)), secrets),
    cacheTarget: (wants) =>
      httpCacheTarget(shell.url, {
        credentialId: shell.credentialId(),
        auth: shell.auth(),
        headers: shell.headers,
        customFetch: shell.customFetch,
        sending: current.fetch,
      }, wants),
  };
}

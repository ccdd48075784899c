/**
 * What names a transport's server and credentials in a shared cache (the client's result
 * cache keys): digests only, so no URL, command line, header or token is ever written to a
 * store as it is.
 *
 * - HTTP: the server is the endpoint URL and the static headers (an API key header changes
 *   what a server returns); the identity is the `credentialId`, else, for the OAuth forms
 *   and a `fetch` made by the OAuth middleware, the tokens' issuer, client and subject
 *   (`oauth/identity.ts`; a live target, unknown until tokens are), else a fixed bearer
 *   token's digest, else (no `auth`) the static headers' digest. An `auth` function or a
 *   custom `fetch` (it may add credentials of its own) without `credentialId` has no known
 *   identity. The static headers are part of every identity.
 * - stdio: `_stdio_target.ts`.
 * - Both also name the endpoint alone (`endpoint`: the URL's origin and path, or the command,
 *   its arguments and working directory), which governance keys pins and grants by. A caller
 *   that keys by the server and the identity only (the hub's stored catalogues) asks with
 *   `{ endpoint: false }`, and that digest is not made.
 * - A target's digests are made concurrently, not one after another.
 * - in-process and other transports: a process-local name, so nothing is shared with other
 *   processes.
 *
 * @module
 */

import { type CacheTarget, type CacheTargetWants, canonicalJson, digest } from "../cache/digest.ts";
import { identityOf } from "../oauth/identity.ts";
import type { HttpAuth } from "./_http_auth.ts";

const NO_DIGEST = Promise.resolve(undefined);

/** What names an HTTP transport's credentials now. */
export interface HttpCredentials {
  /** The current credential id. */
  credentialId: string | undefined;
  /** The current credentials. */
  auth: HttpAuth;
  /** The static headers. */
  headers: Record<string, string>;
  /** The `fetch` option, when one was given. */
  customFetch: unknown;
  /** The `fetch` the transport sends with (the OAuth middleware's, for the OAuth forms). */
  sending: unknown;
}

/**
 * The target of a Streamable HTTP transport.
 *
 * @param url The endpoint.
 * @param credentials The credentials now.
 * @param wants What the caller needs (`{ endpoint: false }`: no endpoint digest).
 * @returns The target.
 */
export async function httpCacheTarget(
  url: URL,
  credentials: HttpCredentials,
  wants: CacheTargetWants = {},
): Promise<CacheTarget> {
  const base = canonicalJson(credentials.headers);
  const named = httpIdentity(url, credentials, base);
  const [server, endpoint, identity] = await Promise.all([
    digest(canonicalJson(["http", url.href, base])),
    wants.endpoint === false
      ? NO_DIGEST
      : digest(canonicalJson(["http", url.origin + url.pathname])),
    named.identity,
  ]);
  const target: CacheTarget = { server, identity };
  if (endpoint !== undefined) target.endpoint = endpoint;
  if (named.live) target.live = true;
  return target;
}

/** An HTTP transport's identity digest (being made), and whether it is a live one. */
function httpIdentity(
  url: URL,
  credentials: HttpCredentials,
  base: string,
): { identity: Promise<string | undefined>; live?: true } {
  const { credentialId, auth, customFetch } = credentials;
  if (credentialId !== undefined) {
    return { identity: digest(canonicalJson(["id", credentialId, base])) };
  }
  const custom = customFetch === undefined ? undefined : identityOf(customFetch);
  if (customFetch !== undefined && custom === undefined) return { identity: NO_DIGEST };
  const reader = identityOf(credentials.sending) ?? custom;
  if (reader !== undefined) {
    const issued = reader(url);
    return {
      identity: issued === undefined ? NO_DIGEST : digest(canonicalJson(["oauth", issued, base])),
      live: true,
    };
  }
  if (auth === undefined) return { identity: digest(canonicalJson(["none", base])) };
  if (typeof auth === "object" && "bearer" in auth) {
    return { identity: digest(canonicalJson(["bearer", auth.bearer, base])) };
  }
  return { identity: NO_DIGEST };
}

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
 * - stdio: the server is the command line, the working directory and the `env` given (they
 *   change what a server returns); the identity is that `env` and the `inheritEnv` choice
 *   (where a stdio server's credentials are). A server that inherits the whole environment
 *   has no known identity: whatever credentials sit in it are unseen.
 * - Both also name the endpoint alone (`endpoint`: the URL's origin and path, or the command,
 *   its arguments and working directory), which governance keys pins and grants by.
 * - in-process and other transports: a process-local name, so nothing is shared with other
 *   processes.
 *
 * @module
 */

import { type CacheTarget, canonicalJson, digest } from "../cache/digest.ts";
import { identityOf } from "../oauth/identity.ts";
import type { HttpAuth } from "./_http_auth.ts";

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
 * @returns The target.
 */
export async function httpCacheTarget(
  url: URL,
  credentials: HttpCredentials,
): Promise<CacheTarget> {
  const { credentialId, auth, headers, customFetch } = credentials;
  const base = canonicalJson(headers);
  const server = await digest(canonicalJson(["http", url.href, base]));
  const endpoint = await digest(canonicalJson(["http", url.origin + url.pathname]));
  if (credentialId !== undefined) {
    return {
      server,
      endpoint,
      identity: await digest(canonicalJson(["id", credentialId, base])),
    };
  }
  const custom = customFetch === undefined ? undefined : identityOf(customFetch);
  if (customFetch !== undefined && custom === undefined) {
    return { server, endpoint, identity: undefined };
  }
  const reader = identityOf(credentials.sending) ?? custom;
  if (reader !== undefined) {
    const named = reader(url);
    const identity = named === undefined
      ? undefined
      : await digest(canonicalJson(["oauth", named, base]));
    return { server, endpoint, identity, live: true };
  }
  let identity: string | undefined;
  if (auth === undefined) identity = await digest(canonicalJson(["none", base]));
  else if (typeof auth === "object" && "bearer" in auth) {
    identity = await digest(canonicalJson(["bearer", auth.bearer, base]));
  }
  return { server, endpoint, identity };
}

/**
 * The target of a stdio transport.
 *
 * @param command The command, its arguments and working directory.
 * @param env The variables given to the server, and the inheritance choice (`"all"`: no
 *   known identity).
 * @returns The target.
 */
export async function stdioCacheTarget(
  command: { command: string; args: readonly string[]; cwd?: string },
  env: { env?: Record<string, string>; inheritEnv: unknown },
): Promise<CacheTarget> {
  const given = env.env ?? {};
  const server = await digest(
    canonicalJson(["stdio", command.command, command.args, command.cwd ?? null, given]),
  );
  const endpoint = await digest(
    canonicalJson(["stdio", command.command, command.args, command.cwd ?? null]),
  );
  if (env.inheritEnv === "all") return { server, endpoint, identity: undefined };
  return {
    server,
    endpoint,
    identity: await digest(canonicalJson(["env", given, env.inheritEnv])),
  };
}

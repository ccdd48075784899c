/**
 * What names a transport's server and credentials in a shared cache (the client's result
 * cache keys): digests only, so no URL, command line, header or token is ever written to a
 * store as it is.
 *
 * - HTTP: the server is the endpoint URL; the identity is the `credentialId` (OAuth forms
 *   default it to `oauth:<principal>`), else a fixed bearer token's digest, else (no
 *   `auth`) the static headers' digest; an `auth` function without `credentialId` has no
 *   known identity. The static headers (an API key header) are part of every identity.
 * - stdio: the server is the command line and working directory; the identity is the `env`
 *   given to the server and the `inheritEnv` choice (where a stdio server's credentials are).
 * - in-process and other transports: a process-local name, so nothing is shared with other
 *   processes.
 *
 * @module
 */

import { type CacheTarget, canonicalJson, digest } from "../cache/digest.ts";
import type { HttpAuth } from "./_http_auth.ts";

/**
 * The target of a Streamable HTTP transport.
 *
 * @param url The endpoint.
 * @param credentialId The current credential id.
 * @param auth The current credentials.
 * @param headers The static headers.
 * @returns The target.
 */
export async function httpCacheTarget(
  url: URL,
  credentialId: string | undefined,
  auth: HttpAuth,
  headers: Record<string, string>,
): Promise<CacheTarget> {
  const server = await digest(`http ${url.href}`);
  const base = canonicalJson(headers);
  let identity: string | undefined;
  if (credentialId !== undefined) {
    identity = await digest(canonicalJson(["id", credentialId, base]));
  } else if (auth === undefined) identity = await digest(canonicalJson(["none", base]));
  else if (typeof auth === "object" && "bearer" in auth) {
    identity = await digest(canonicalJson(["bearer", auth.bearer, base]));
  }
  return { server, identity };
}

/**
 * The target of a stdio transport.
 *
 * @param command The command, its arguments and working directory.
 * @param env The variables given to the server, and the inheritance choice.
 * @returns The target.
 */
export async function stdioCacheTarget(
  command: { command: string; args: readonly string[]; cwd?: string },
  env: { env?: Record<string, string>; inheritEnv: unknown },
): Promise<CacheTarget> {
  return {
    server: await digest(canonicalJson(["stdio", command.command, command.args, command.cwd])),
    identity: await digest(canonicalJson(["env", env.env ?? {}, env.inheritEnv])),
  };
}

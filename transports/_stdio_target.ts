/**
 * What names a stdio transport's server and credentials in a shared cache (the client's
 * result cache, the hub's stored catalogues; HTTP's are in `cache_target.ts`): digests only,
 * so no command line or variable is ever written to a store as it is.
 *
 * - The server is the command line, the working directory, the `env` given and the
 *   `inheritEnv` choice (they change what a server returns); the identity is that `env` and
 *   that choice (where a stdio server's credentials are), with the command line. Both are
 *   halves of one digest, made once per server (a hub keys dozens of servers before its
 *   first search). A server that inherits the whole environment has no known identity:
 *   whatever credentials sit in it are unseen.
 * - The endpoint alone (`endpoint`: the command, its arguments and working directory) is what
 *   governance keys pins and grants by; a caller that asks with `{ endpoint: false }` (the
 *   hub's stored catalogues) does not have that digest made.
 *
 * @module
 */

import {
  type CacheTarget,
  type CacheTargetWants,
  canonicalJson,
  digest,
  digestHalves,
} from "../cache/digest.ts";

/**
 * The target of a stdio transport.
 *
 * @param command The command, its arguments and working directory.
 * @param env The variables given to the server, and the inheritance choice (`"all"`: no
 *   known identity).
 * @param wants What the caller needs (`{ endpoint: false }`: no endpoint digest).
 * @returns The target.
 */
export async function stdioCacheTarget(
  command: { command: string; args: readonly string[]; cwd?: string },
  env: { env?: Record<string, string>; inheritEnv: unknown },
  wants: CacheTargetWants = {},
): Promise<CacheTarget> {
  const line = ["stdio", command.command, command.args, command.cwd ?? null];
  const [[server, identity], endpoint] = await Promise.all([
    digestHalves(canonicalJson([...line, env.env ?? {}, env.inheritEnv ?? null])),
    wants.endpoint === false ? undefined : digest(canonicalJson(line)),
  ]);
  const target: CacheTarget = { server, identity: env.inheritEnv === "all" ? undefined : identity };
  if (endpoint !== undefined) target.endpoint = endpoint;
  return target;
}

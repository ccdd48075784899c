/**
 * `WWW-Authenticate` challenges (RFC 9110 §11.6.1) as an OAuth client reads them: the
 * `Bearer` (or `DPoP`) challenge's `resource_metadata`, `scope` and `error`.
 *
 * @module
 */

/** One parsed challenge: its scheme (as sent) and its auth-params (names in lower case). */
export interface AuthChallenge {
  /** The scheme, e.g. `"Bearer"` or `"DPoP"`. */
  scheme: string;
  /** The auth-params, unquoted. A token68 value is left out. */
  params: Record<string, string>;
}

/** What an MCP client needs from a 401 or 403 challenge. */
export interface ResourceChallenge {
  /** The scheme of the challenge it came from (`"bearer"` or `"dpop"`, lower case). */
  scheme: string;
  /** `resource_metadata`: where the protected resource metadata is. */
  resourceMetadata?: string;
  /** `scope`, split on spaces: the scopes this operation needs. */
  scope?: string[];
  /** `error`, e.g. `invalid_token`, `insufficient_scope` or `use_dpop_nonce`. */
  error?: string;
  /** Whether the server offered the `DPoP` scheme (in any of its challenges). */
  dpop?: boolean;
}

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+/;

/**
 * Parses every challenge of a `WWW-Authenticate` value. Malformed parts end the parse;
 * what was read before them is kept.
 *
 * @param value The header value (or `null`).
 * @returns The challenges, in order.
 *
 * @example
 * ```ts
 * import { parseChallenges } from "./challenge.ts";
 *
 * const [bearer] = parseChallenges(
 *   'Bearer resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource", scope="files:read"',
 * );
 * if (bearer.scheme !== "Bearer" || bearer.params.scope !== "files:read") throw new Error();
 * ```
 */
export function parseChallenges(value: string | null | undefined): AuthChallenge[] {
  const challenges: AuthChallenge[] = [];
  if (typeof value !== "string") return challenges;
  let rest = value.trim();
  while (rest.length > 0) {
    rest = rest.replace(/^[\s,]+/, "");
    const scheme = TOKEN.exec(rest);
    if (!scheme) break;
    rest = rest.slice(scheme[0].length);
    const challenge: AuthChallenge = { scheme: scheme[0], params: {} };
    challenges.push(challenge);
    // A token68 (`Basic dXNlcg==`) right after the scheme.
    const token68 = /^\s+[A-Za-z0-9\-._~+/]+=*\s*(?=,|$)/.exec(rest);
    if (token68) rest = rest.slice(token68[0].length);
    for (;;) {
      const param =
        /^[\s,]*([!#$%&'*+.^_`|~0-9A-Za-z-]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([!#$%&'*+.^_`|~0-9A-Za-z\-/:]+))/s
          .exec(rest);
      if (!param) break;
      // `, Next realm=…` starts the next challenge: a token followed by space, not `=`.
      // Defined, not assigned: a parameter named `__proto__` is a parameter (under Bun an
      // assignment would try to set the prototype instead).
      Object.defineProperty(challenge.params, param[1].toLowerCase(), {
        value: param[2] !== undefined ? param[2].replace(/\\(.)/gs, "$1") : param[3],
        enumerable: true,
        writable: true,
        configurable: true,
      });
      rest = rest.slice(param[0].length);
    }
  }
  return challenges;
}

/**
 * Reads the challenge of a 401/403 from an OAuth-protected MCP server: the first `Bearer`
 * or `DPoP` challenge (else the first challenge of any scheme).
 *
 * @param response The response, or its `WWW-Authenticate` value.
 * @returns The parts the client uses; all absent when there is no challenge.
 *
 * @example
 * ```ts
 * import { readChallenge } from "./challenge.ts";
 *
 * const response = new Response(null, {
 *   status: 403,
 *   headers: {
 *     "www-authenticate":
 *       'Bearer error="insufficient_scope", scope="files:read files:write", resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource"',
 *   },
 * });
 * const challenge = readChallenge(response);
 * if (challenge.error !== "insufficient_scope" || challenge.scope?.length !== 2) throw new Error();
 * ```
 */
export function readChallenge(response: Response | string | null): ResourceChallenge {
  const value = response instanceof Response ? response.headers.get("www-authenticate") : response;
  const all = parseChallenges(value);
  const chosen = all.find((c) => /^(bearer|dpop)$/i.test(c.scheme)) ?? all[0];
  if (chosen === undefined) return { scheme: "" };
  const result: ResourceChallenge = { scheme: chosen.scheme.toLowerCase() };
  if (all.some((c) => c.scheme.toLowerCase() === "dpop")) result.dpop = true;
  // resource_metadata may sit on any of the challenges (Bearer and DPoP both carry it).
  const metadata = chosen.params.resource_metadata ??
    all.find((c) => c.params.resource_metadata !== undefined)?.params.resource_metadata;
  if (metadata) result.resourceMetadata = metadata;
  const scope = splitScope(chosen.params.scope);
  if (scope !== undefined) result.scope = scope;
  if (chosen.params.error) result.error = chosen.params.error;
  return result;
}

/**
 * Splits a space-separated scope string; `undefined` for no scopes.
 *
 * @param scope E.g. `"files:read files:write"`.
 * @returns The scopes, deduplicated, in order; `undefined` when empty.
 *
 * @example
 * ```ts
 * import { splitScope } from "./challenge.ts";
 *
 * if (splitScope("a  b a")?.join() !== "a,b" || splitScope("") !== undefined) throw new Error();
 * ```
 */
export function splitScope(scope: string | undefined | null): string[] | undefined {
  if (typeof scope !== "string") return undefined;
  const scopes = [...new Set(scope.split(/\s+/).filter((s) => s.length > 0))];
  return scopes.length > 0 ? scopes : undefined;
}

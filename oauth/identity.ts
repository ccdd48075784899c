/**
 * Whom an OAuth middleware's tokens name, for a shared cache: the issuer, the `client_id`,
 * the token's subject (`sub` of the ID token or of a JWT access token) and the profile. A local label (`principal`) alone
 * never names an identity, as two tenants may both be `default`.
 *
 * - Client credentials: the client acts for itself, so issuer and `client_id` name it.
 * - A user's login: the subject is needed too; a token whose subject cannot be read (an
 *   opaque token) has no known identity (give the transport a `credentialId` to name it).
 * - Before the first tokens there is no identity either.
 *
 * The middleware's `fetch` carries the reader under {@linkcode IDENTITY}, so a transport
 * handed `fetch: oauth(fetch)` can read it ({@linkcode identityOf}).
 *
 * @module
 */

/** The key under which an authorizing `fetch` carries its identity reader. */
export const IDENTITY: unique symbol = Symbol.for("conduit.mcp.oauth.identity");

/** Reads the identity of the tokens for the MCP endpoint `url`, or `undefined`. */
export type IdentityReader = (url: URL) => string | undefined;

/**
 * The identity reader an authorizing `fetch` carries, or `undefined` for any other value.
 *
 * @param fetch A `fetch` (or anything).
 * @returns The reader.
 *
 * @example
 * ```ts
 * import { identityOf } from "./identity.ts";
 *
 * if (identityOf(fetch) !== undefined) throw new Error("a plain fetch names nobody");
 * ```
 */
export function identityOf(fetch: unknown): IdentityReader | undefined {
  if (typeof fetch !== "function") return undefined;
  const reader = (fetch as unknown as Record<symbol, unknown>)[IDENTITY];
  return typeof reader === "function" ? reader as IdentityReader : undefined;
}

/**
 * The identity of a token set, as text (hash it before storing).
 *
 * @param tokens The issuer, the client and the access token.
 * @param grant Whether a user logged in (`authorization_code`) or the client acts for itself.
 * @param profile The account profile, when one is named (a partition of its own).
 * @returns The identity, or `undefined` when it is not known.
 *
 * @example
 * ```ts
 * import { tokenIdentity } from "./identity.ts";
 *
 * const id = tokenIdentity(
 *   { issuer: "https://as.example.com", clientId: "svc", accessToken: "opaque" },
 *   "client_credentials",
 * );
 * if (id === undefined) throw new Error("a client's own tokens name it");
 * ```
 */
export function tokenIdentity(
  tokens: { issuer: string; clientId?: string; accessToken: string; subject?: string },
  grant: "authorization_code" | "client_credentials",
  profile?: string,
): string | undefined {
  if (tokens.clientId === undefined) return undefined;
  const subject = tokens.subject ?? jwtSubject(tokens.accessToken);
  if (subject === undefined && grant === "authorization_code") return undefined;
  const id = ["oauth", grant, tokens.issuer, tokens.clientId, subject ?? null];
  // A profile is its own partition, even for the same account.
  return JSON.stringify(profile === undefined ? id : [...id, profile]);
}

/**
 * The `sub` of a JWT (unverified: it only narrows a partition or names an account to a
 * user), or `undefined`.
 *
 * @param token A token (a JWT, or an opaque one).
 * @returns Its subject, when it is a JWT that has one.
 *
 * @example
 * ```ts
 * import { jwtSubject } from "./identity.ts";
 *
 * if (jwtSubject("opaque-token") !== undefined) throw new Error();
 * ```
 */
export function jwtSubject(token: string): string | undefined {
  const parts = token.split(".");
  if (parts.length !== 3 || parts[1].length > 16_384) return undefined;
  try {
    const text = atob(parts[1].replace(/-/g, "+").replace(/_/g, "/"));
    const claims: unknown = JSON.parse(text);
    if (typeof claims !== "object" || claims === null) return undefined;
    const sub = (claims as Record<string, unknown>).sub;
    return typeof sub === "string" && sub.length > 0 ? sub : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Private: credentials for the Streamable HTTP transport (the `auth` forms and the bearer
 * token), and safe summaries of `WWW-Authenticate` challenges for `auth` errors. Nothing
 * here puts a token or a full header in an error.
 *
 * @module
 */

import { McpError } from "../protocol/errors.ts";

/**
 * Credentials sent as `Authorization: Bearer <token>`: none, a fixed token, or a function
 * asked for the token before every request (so it can refresh it).
 *
 * @example The three forms
 * ```ts
 * import type { HttpAuth } from "./streamable_http.ts";
 *
 * const forms: HttpAuth[] = [undefined, { bearer: "token" }, () => Promise.resolve("token")];
 * if (forms.length !== 3) throw new Error("unexpected");
 * ```
 */
export type HttpAuth =
  | undefined
  | { bearer: string }
  | (() => string | Promise<string>);

/** Checks an `auth` value; throws `TypeError` naming `key` when it is not a valid form. */
export function checkAuth(auth: unknown, key: string): HttpAuth {
  if (auth === undefined || typeof auth === "function") return auth as HttpAuth;
  if (typeof auth === "object" && auth !== null && !Array.isArray(auth)) {
    const bearer = (auth as { bearer?: unknown }).bearer;
    if (typeof bearer === "string" && validToken(bearer)) return { bearer };
    throw new TypeError(`${key}.bearer must be a non-empty token without spaces or controls`);
  }
  throw new TypeError(`${key} must be undefined, { bearer: string } or a function`);
}

function validToken(token: string): boolean {
  return token.length > 0 && /^[\x21-\x7e]+$/.test(token);
}

/** The bearer token to send now, or `undefined`; failures become `McpError` kind `auth`. */
export async function resolveToken(auth: HttpAuth): Promise<string | undefined> {
  if (auth === undefined) return undefined;
  if (typeof auth === "object") return auth.bearer;
  let token: unknown;
  try {
    token = await auth();
  } catch (cause) {
    throw new McpError("The auth function failed to provide a token", {
      kind: "auth",
      reason: "credentials_failed",
      cause,
    });
  }
  if (typeof token !== "string" || !validToken(token)) {
    throw new McpError("The auth function returned an unusable token (not a non-empty token)", {
      kind: "auth",
      reason: "credentials_failed",
    });
  }
  return token;
}

/** The scheme and parameters of the first `WWW-Authenticate` challenge. */
export interface ChallengeSummary {
  /** E.g. `"Bearer"`. */
  scheme: string;
  /** Its auth-params (`realm`, `scope`, `error`, `resource_metadata`, …), secrets left out. */
  params: Record<string, string>;
}

const SECRET_PARAM = /token|secret|nonce|key|pass|code|sig|cred|opaque/i;

/**
 * Reads the first challenge of a `WWW-Authenticate` header, dropping parameters whose names
 * suggest secrets (and any token68 blob).
 */
export function summarizeChallenge(value: string | null): ChallengeSummary | undefined {
  if (value === null) return undefined;
  const match = /^\s*([!#$%&'*+.^_`|~0-9A-Za-z-]+)(.*)$/s.exec(value);
  if (!match) return undefined;
  const params: Record<string, string> = {};
  // A token68 blob (`Basic dXNlcg==`) is credential-like: drop it.
  let rest = match[2].replace(/^\s+[A-Za-z0-9\-._~+/]+=*\s*(?=,|$)/, "");
  const param = /^\s*,?\s*([!#$%&'*+.^_`|~0-9A-Za-z-]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^\s,"]*))/;
  // Only the first challenge: a `, Scheme name=…` that follows does not match `name=`.
  for (let found = param.exec(rest); found !== null; found = param.exec(rest)) {
    const name = found[1].toLowerCase();
    const raw = found[2] !== undefined ? found[2].replace(/\\(.)/g, "$1") : found[3];
    if (!SECRET_PARAM.test(name)) params[name] = raw;
    rest = rest.slice(found[0].length);
  }
  return { scheme: match[1], params };
}

/** Formats a summary for an error message, e.g. `Bearer realm="mcp", scope="read"`. */
export function describeChallenge(summary: ChallengeSummary | undefined): string {
  if (summary === undefined) return "no WWW-Authenticate challenge";
  const params = Object.entries(summary.params).map(([k, v]) => `${k}="${v}"`).join(", ");
  return params === "" ? summary.scheme : `${summary.scheme} ${params}`;
}

/** The `McpError` for a 401 or 403: kind `auth`, with the status and a safe challenge. */
export function authError(response: Response, what: string): McpError {
  const summary = summarizeChallenge(response.headers.get("www-authenticate"));
  const status = response.status;
  return new McpError(
    `The server refused ${what} with HTTP ${status} (${
      status === 401 ? "unauthorized" : "forbidden"
    }; ${describeChallenge(summary)})`,
    {
      kind: "auth",
      reason: status === 401 ? "unauthorized" : "forbidden",
      data: { status, challenge: summary },
    },
  );
}

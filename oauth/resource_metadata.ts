/**
 * Protected resource metadata (RFC 9728): where to look for it, in the order the MCP
 * authorization spec sets, whether its `resource` covers the server, and the check of a
 * response (testable with a hand-made `Response`).
 *
 * @module
 */

import { canonicalResource, discard, jsonObject, oauthError } from "./_util.ts";

/** Protected resource metadata (RFC 9728), as the client uses it. */
export interface ProtectedResourceMetadata {
  /** The resource identifier: sent as `resource` in authorization and token requests. */
  resource?: string;
  /** The authorization servers' issuer identifiers (at least one). */
  authorization_servers: string[];
  /** The scopes the resource knows. */
  scopes_supported?: string[];
  /** Any other member. */
  [member: string]: unknown;
}

const PRM_WELL_KNOWN = "/.well-known/oauth-protected-resource";

/**
 * Where to look for the protected resource metadata of `serverUrl`, in order: the
 * challenge's `resource_metadata`, then the path-inserted well-known URL, then the root one.
 *
 * @param serverUrl The MCP endpoint.
 * @param fromChallenge The `resource_metadata` of a 401 challenge, when there was one.
 * @returns The URLs to try, without duplicates.
 *
 * @example
 * ```ts
 * import { protectedResourceMetadataUrls } from "./resource_metadata.ts";
 *
 * const urls = protectedResourceMetadataUrls(new URL("https://example.com/public/mcp"));
 * if (urls[0].href !== "https://example.com/.well-known/oauth-protected-resource/public/mcp") {
 *   throw new Error();
 * }
 * if (urls[1].href !== "https://example.com/.well-known/oauth-protected-resource") throw new Error();
 * ```
 */
export function protectedResourceMetadataUrls(serverUrl: URL, fromChallenge?: string): URL[] {
  const urls: URL[] = [];
  if (fromChallenge !== undefined) {
    try {
      urls.push(new URL(fromChallenge, serverUrl));
    } catch {
      // an unusable hint: fall back to the well-known URLs
    }
  }
  const path = serverUrl.pathname.replace(/\/+$/, "");
  if (path !== "") urls.push(new URL(`${PRM_WELL_KNOWN}${path}`, serverUrl.origin));
  urls.push(new URL(PRM_WELL_KNOWN, serverUrl.origin));
  const seen = new Set<string>();
  return urls.filter((url) => !seen.has(url.href) && seen.add(url.href));
}

/**
 * Whether a protected resource metadata `resource` covers the server URL: same origin, and
 * its path is the server's path or a parent of it (compared segment by segment).
 *
 * @param resource The metadata's `resource`.
 * @param serverUrl The MCP endpoint the client talks to.
 * @returns `true` when the metadata may be used for this server.
 *
 * @example
 * ```ts
 * import { resourceMatches } from "./resource_metadata.ts";
 *
 * const server = new URL("https://example.com/mcp");
 * if (!resourceMatches("https://example.com/mcp", server)) throw new Error();
 * if (!resourceMatches("https://example.com", server)) throw new Error();
 * if (resourceMatches("https://evil.example.com/mcp", server)) throw new Error();
 * if (resourceMatches("https://example.com/mcp-other", server)) throw new Error();
 * ```
 */
export function resourceMatches(resource: string, serverUrl: URL): boolean {
  let parsed: URL;
  try {
    parsed = new URL(resource);
  } catch {
    return false;
  }
  if (parsed.origin !== serverUrl.origin || parsed.hash !== "") return false;
  const want = parsed.pathname.replace(/\/+$/, "");
  const have = serverUrl.pathname.replace(/\/+$/, "");
  return want === "" || have === want || have.startsWith(`${want}/`);
}

/**
 * Checks a protected resource metadata response.
 *
 * @param serverUrl The MCP endpoint (the `resource` must cover it).
 * @param response The response of `metadataRequest` (in `discovery.ts`).
 * @returns The metadata, or `undefined` when the document is not there (any non-200
 *   status), so the next URL should be tried.
 * @throws {McpError} kind `auth`: `resource_mismatch` when the `resource` names another
 *   server, `invalid_metadata` when the document is not usable.
 *
 * @example
 * ```ts
 * import { processProtectedResourceMetadataResponse } from "./resource_metadata.ts";
 *
 * const metadata = await processProtectedResourceMetadataResponse(
 *   new URL("https://mcp.example.com/mcp"),
 *   Response.json({
 *     resource: "https://mcp.example.com/mcp",
 *     authorization_servers: ["https://auth.example.com"],
 *   }),
 * );
 * if (metadata?.authorization_servers[0] !== "https://auth.example.com") throw new Error();
 * ```
 */
export async function processProtectedResourceMetadataResponse(
  serverUrl: URL,
  response: Response,
): Promise<ProtectedResourceMetadata | undefined> {
  if (response.status !== 200) {
    discard(response);
    return undefined;
  }
  const body = await jsonObject(response);
  if (body === undefined) {
    throw oauthError("The protected resource metadata is not a JSON object", "invalid_metadata");
  }
  const servers = body.authorization_servers;
  if (
    !Array.isArray(servers) || servers.length === 0 ||
    !servers.every((s) => typeof s === "string" && s.length > 0)
  ) {
    throw oauthError(
      "The protected resource metadata lists no authorization_servers",
      "invalid_metadata",
    );
  }
  if (body.resource !== undefined) {
    if (typeof body.resource !== "string" || !resourceMatches(body.resource, serverUrl)) {
      throw oauthError(
        `The protected resource metadata is for another resource (${
          String(body.resource).slice(0, 200)
        }), not ${canonicalResource(serverUrl)}; refusing to authorize`,
        "resource_mismatch",
        { resource: String(body.resource).slice(0, 200) },
      );
    }
  }
  const scopes = body.scopes_supported;
  if (
    scopes !== undefined && (!Array.isArray(scopes) || !scopes.every((s) => typeof s === "string"))
  ) {
    throw oauthError(
      "The protected resource metadata has a bad scopes_supported",
      "invalid_metadata",
    );
  }
  return body as ProtectedResourceMetadata;
}

/**
 * Discovery: protected resource metadata (RFC 9728) and authorization server metadata
 * (RFC 8414 / OpenID Connect Discovery), in the order the MCP authorization spec sets.
 *
 * Each network step is a pair: `…Urls()` builds where to ask, `…Request()` sends one GET,
 * `process…Response()` checks the answer (testable with a hand-made `Response`).
 * {@linkcode discover} runs the whole chain, with the 2025-03-26 fallbacks.
 *
 * @module
 */

import {
  type AuthorizationServerMetadata,
  authorizationServerMetadataUrls,
  defaultAuthorizationServerMetadata,
  processAuthorizationServerMetadataResponse,
} from "./server_metadata.ts";
import {
  canonicalResource,
  checkEndpoint,
  discard,
  type HttpOptions,
  jsonObject,
  oauthError,
  send,
} from "./_util.ts";

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
 * import { protectedResourceMetadataUrls } from "./discovery.ts";
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
 * Sends the GET for a metadata document.
 *
 * @param url The metadata URL.
 * @param options `fetch` and `signal`.
 * @returns The response, unread.
 *
 * @example
 * ```ts
 * import { metadataRequest } from "./discovery.ts";
 *
 * const response = await metadataRequest(new URL("https://example.com/.well-known/x"), {
 *   fetch: (input, init) =>
 *     Promise.resolve(Response.json({ accept: new Headers(init?.headers).get("accept") })),
 * });
 * if ((await response.json()).accept !== "application/json") throw new Error();
 * ```
 */
export function metadataRequest(url: URL, options: HttpOptions = {}): Promise<Response> {
  return send(
    url,
    { method: "GET", headers: { accept: "application/json" }, redirect: "follow" },
    options,
    "metadata endpoint",
  );
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
 * import { resourceMatches } from "./discovery.ts";
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
 * @param response The response of {@linkcode metadataRequest}.
 * @returns The metadata, or `undefined` when the document is not there (any non-200
 *   status), so the next URL should be tried.
 * @throws {McpError} kind `auth`: `resource_mismatch` when the `resource` names another
 *   server, `invalid_metadata` when the document is not usable.
 *
 * @example
 * ```ts
 * import { processProtectedResourceMetadataResponse } from "./discovery.ts";
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

/** The outcome of {@linkcode discover}. */
export interface Discovery {
  /** The `resource` to send: the metadata's, exactly, else the canonical server URL. */
  resource: string;
  /** The protected resource metadata (absent in the 2025-03-26 fallback). */
  resourceMetadata?: ProtectedResourceMetadata;
  /** The issuer identifier the metadata was checked against. */
  issuer: string;
  /** The authorization server metadata. */
  metadata: AuthorizationServerMetadata;
  /** `"metadata"` (normal), `"legacy_metadata"` or `"legacy_defaults"` (2025-03-26). */
  source: "metadata" | "legacy_metadata" | "legacy_defaults";
}

/** Options for {@linkcode discover}. */
export interface DiscoverOptions extends HttpOptions {
  /** `resource_metadata` from the 401 challenge. */
  resourceMetadataUrl?: string;
  /** Picks one of several authorization servers (default: the first). */
  selectAuthorizationServer?: (issuers: string[]) => string;
}

/**
 * Runs discovery for `serverUrl`: protected resource metadata (challenge URL, then the
 * well-known URLs), then the first authorization server's metadata in spec order. Without
 * any protected resource metadata, falls back to the 2025-03-26 rules: metadata at the
 * server origin, else default endpoints there.
 *
 * @param serverUrl The MCP endpoint.
 * @param options The challenge's metadata URL, `fetch`, `signal`.
 * @returns What the authorization needs.
 * @throws {McpError} kind `auth` (`resource_mismatch`, `issuer_mismatch`,
 *   `invalid_metadata`, `no_authorization_server`, `insecure_endpoint`, `network`).
 *
 * @example
 * ```ts
 * import { discover } from "./discovery.ts";
 *
 * const documents: Record<string, unknown> = {
 *   "/.well-known/oauth-protected-resource/mcp": {
 *     resource: "https://mcp.example.com/mcp",
 *     authorization_servers: ["https://auth.example.com"],
 *   },
 *   "/.well-known/oauth-authorization-server": {
 *     issuer: "https://auth.example.com",
 *     authorization_endpoint: "https://auth.example.com/authorize",
 *     token_endpoint: "https://auth.example.com/token",
 *     code_challenge_methods_supported: ["S256"],
 *   },
 * };
 * const found = await discover(new URL("https://mcp.example.com/mcp"), {
 *   fetch: (input) => {
 *     const doc = documents[new URL(String(input)).pathname];
 *     return Promise.resolve(doc ? Response.json(doc) : new Response(null, { status: 404 }));
 *   },
 * });
 * if (found.issuer !== "https://auth.example.com" || found.source !== "metadata") throw new Error();
 * ```
 */
export async function discover(serverUrl: URL, options: DiscoverOptions = {}): Promise<Discovery> {
  let resourceMetadata: ProtectedResourceMetadata | undefined;
  for (const url of protectedResourceMetadataUrls(serverUrl, options.resourceMetadataUrl)) {
    resourceMetadata = await processProtectedResourceMetadataResponse(
      serverUrl,
      await metadataRequest(url, options),
    );
    if (resourceMetadata !== undefined) break;
  }

  if (resourceMetadata === undefined) {
    // 2025-03-26: the MCP server's origin is the authorization server.
    const issuer = serverUrl.origin;
    const resource = canonicalResource(serverUrl);
    const [url] = authorizationServerMetadataUrls(issuer);
    const metadata = await processAuthorizationServerMetadataResponse(
      issuer,
      await metadataRequest(url, options),
    );
    if (metadata !== undefined) {
      checkEndpoints(metadata);
      return { resource, issuer, metadata, source: "legacy_metadata" };
    }
    const defaults = defaultAuthorizationServerMetadata(serverUrl);
    checkEndpoints(defaults);
    return { resource, issuer, metadata: defaults, source: "legacy_defaults" };
  }

  const servers = resourceMetadata.authorization_servers;
  const issuer = options.selectAuthorizationServer?.([...servers]) ?? servers[0];
  let issuerUrl: URL;
  try {
    issuerUrl = new URL(issuer);
  } catch {
    throw oauthError("The protected resource metadata names an invalid issuer", "invalid_metadata");
  }
  checkEndpoint(issuerUrl, "authorization server");
  let metadata: AuthorizationServerMetadata | undefined;
  let mismatch: unknown;
  for (const url of authorizationServerMetadataUrls(issuer)) {
    try {
      metadata = await processAuthorizationServerMetadataResponse(
        issuer,
        await metadataRequest(url, options),
      );
    } catch (error) {
      // A document for another issuer is never used; another location may still hold ours.
      if ((error as { reason?: string }).reason !== "issuer_mismatch") throw error;
      mismatch = error;
      continue;
    }
    if (metadata !== undefined) break;
  }
  if (metadata === undefined) {
    if (mismatch !== undefined) throw mismatch;
    throw oauthError(
      `No authorization server metadata found for ${issuer}`,
      "no_authorization_server",
      { issuer },
    );
  }
  checkEndpoints(metadata);
  const resource = resourceMetadata.resource ?? canonicalResource(serverUrl);
  return { resource, resourceMetadata, issuer, metadata, source: "metadata" };
}

function checkEndpoints(metadata: AuthorizationServerMetadata): void {
  for (
    const key of ["authorization_endpoint", "token_endpoint", "registration_endpoint"] as const
  ) {
    const value = metadata[key];
    if (typeof value !== "string") continue;
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      throw oauthError(`The authorization server metadata has a bad ${key}`, "invalid_metadata");
    }
    checkEndpoint(url, key.replace("_", " "));
  }
}

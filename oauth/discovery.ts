/**
 * Discovery: protected resource metadata (RFC 9728) and authorization server metadata
 * (RFC 8414 / OpenID Connect Discovery), in the order the MCP authorization spec sets.
 *
 * Each network step is a pair: `…Urls()` builds where to ask, `…Request()` sends one GET,
 * `process…Response()` checks the answer (testable with a hand-made `Response`); the checks
 * are in `resource_metadata.ts` and `server_metadata.ts`. {@linkcode discover} runs the
 * whole chain, with the 2025-03-26 fallbacks.
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
  processProtectedResourceMetadataResponse,
  type ProtectedResourceMetadata,
  protectedResourceMetadataUrls,
} from "./resource_metadata.ts";
import { canonicalResource, checkEndpoint, type HttpOptions, oauthError, send } from "./_util.ts";
import { checkKeys } from "../protocol/option_keys.ts";

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
  const known = ["fetch", "signal", "resourceMetadataUrl", "selectAuthorizationServer"];
  checkKeys(options, known, "discover options");
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

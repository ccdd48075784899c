/**
 * Which client the authorization uses, in the spec's priority order: a pre-registered
 * client, a Client ID Metadata Document URL (CIMD) when the authorization server supports
 * it, a registration kept from before, then dynamic client registration (RFC 7591).
 *
 * Registrations are kept per authorization server (`issuer`): after the protected
 * resource moves to another server, the old credentials are never presented there.
 *
 * @module
 */

import {
  type ClientMetadata,
  DEVICE_GRANT,
  processRegistrationResponse,
  registrationBody,
  registrationRequest,
} from "./dynamic_registration.ts";
import type { AuthorizationServerMetadata } from "./server_metadata.ts";
import type { ClientRegistration, TokenStore } from "./store.ts";
import { type HttpOptions, oauthError } from "./_util.ts";

/** How the client authenticates at the token endpoint. */
export type TokenEndpointAuthMethod =
  | "client_secret_basic"
  | "client_secret_post"
  | "none"
  | "private_key_jwt";

/** Client credentials registered in advance with an authorization server. */
export interface PreRegisteredClient {
  /** The `client_id`. */
  clientId: string;
  /** The `client_secret`, for a confidential client. */
  clientSecret?: string;
  /**
   * The issuer these credentials belong to. With it, the client refuses to use them at any
   * other authorization server; without it, they are bound to the first one used.
   */
  issuer?: string;
  /** Overrides the token endpoint authentication method (default: chosen from the metadata). */
  tokenEndpointAuthMethod?: "client_secret_basic" | "client_secret_post" | "none";
}

/** What {@linkcode resolveClient} needs. */
export interface ResolveClientOptions extends HttpOptions {
  /** The authorization server's issuer. */
  issuer: string;
  /** Its metadata. */
  metadata: AuthorizationServerMetadata;
  /** The redirect URI the authorization will use (unused by the device flow). */
  redirectUri: string;
  /** Where registrations are kept. */
  store: TokenStore;
  /** A pre-registered client (checked against `issuer`). */
  client?: PreRegisteredClient;
  /** A client metadata document URL, used as `client_id` where CIMD is supported. */
  clientMetadataUrl?: string;
  /** Client metadata for dynamic registration. */
  clientMetadata?: ClientMetadata;
  /** The clock. */
  now?: () => number;
  /** The login flow the client is for (default `"browser"`): the device flow registers its grant. */
  flow?: "browser" | "device";
}

/**
 * Picks (or registers) the client for an authorization at `issuer`, in priority order:
 * pre-registered, CIMD, a kept registration whose redirect URIs include this one, dynamic
 * registration (kept in the store for `issuer`).
 *
 * @param options The issuer, its metadata, the redirect URI, the store and the choices.
 * @returns The client registration to use.
 * @throws {McpError} kind `auth`: `client_mismatch` (pre-registered for another issuer),
 *   `no_client`, `registration_failed`.
 *
 * @example A client metadata document URL where the server supports CIMD
 * ```ts
 * import { resolveClient } from "./registration.ts";
 * import { memoryTokenStore } from "./store.ts";
 *
 * const client = await resolveClient({
 *   issuer: "https://as.example.com",
 *   metadata: { issuer: "https://as.example.com", client_id_metadata_document_supported: true },
 *   redirectUri: "http://127.0.0.1:8765/callback",
 *   store: memoryTokenStore(),
 *   clientMetadataUrl: "https://app.example.com/oauth/client.json",
 * });
 * if (client.clientId !== "https://app.example.com/oauth/client.json") throw new Error();
 * ```
 */
export async function resolveClient(options: ResolveClientOptions): Promise<ClientRegistration> {
  const { issuer, metadata, redirectUri, store } = options;
  const now = options.now ?? Date.now;
  if (options.client !== undefined) {
    const client = options.client;
    if (client.issuer !== undefined && client.issuer !== issuer) {
      throw oauthError(
        `The pre-registered client is registered with ${client.issuer}, but the server now ` +
          `uses the authorization server ${issuer}; refusing to present its credentials there`,
        "client_mismatch",
        { expected: client.issuer, issuer },
      );
    }
    const registration: ClientRegistration = {
      issuer,
      clientId: client.clientId,
      redirectUris: [redirectUri],
    };
    if (client.clientSecret !== undefined) registration.clientSecret = client.clientSecret;
    if (client.tokenEndpointAuthMethod !== undefined) {
      registration.tokenEndpointAuthMethod = client.tokenEndpointAuthMethod;
    }
    return registration;
  }
  if (
    options.clientMetadataUrl !== undefined &&
    metadata.client_id_metadata_document_supported === true
  ) {
    return {
      issuer,
      clientId: options.clientMetadataUrl,
      tokenEndpointAuthMethod: "none",
      redirectUris: [redirectUri],
    };
  }
  const device = options.flow === "device";
  const kept = await store.getClient(issuer);
  if (
    kept !== undefined && kept.issuer === issuer &&
    (device
      ? kept.grantTypes?.includes(DEVICE_GRANT) === true
      : kept.redirectUris.includes(redirectUri)) &&
    (kept.clientSecretExpiresAt === undefined || kept.clientSecretExpiresAt > now() + 60_000)
  ) {
    return kept;
  }
  const redirectUris = device ? [] : [redirectUri];
  const body = registrationBody(
    metadata,
    redirectUris,
    options.clientMetadata,
    device ? "device" : "browser",
  );
  const registration = await processRegistrationResponse(
    issuer,
    await registrationRequest(metadata, body, options),
    redirectUris,
    body.grant_types,
  );
  await store.setClient(issuer, registration);
  return registration;
}

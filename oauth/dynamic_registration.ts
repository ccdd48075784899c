/**
 * Dynamic client registration (RFC 7591): the authentication method to ask for, the
 * request body (client metadata), the request, and the check of its response.
 *
 * @module
 */

import * as oauth from "oauth4webapi";
import type { AuthorizationServerMetadata } from "./server_metadata.ts";
import type { ClientRegistration } from "./store.ts";
import { fromOAuthError, o4wOptions } from "./_o4w.ts";
import { discard, type HttpOptions, isLoopback, jsonObject, oauthError } from "./_util.ts";

/** The device flow's grant type (RFC 8628), registered when the device flow is used. */
export const DEVICE_GRANT = "urn:ietf:params:oauth:grant-type:device_code";

/** Client metadata sent in dynamic registration. */
export interface ClientMetadata {
  /** `client_name` (default `"Conduit MCP client"`). */
  clientName?: string;
  /** `client_uri`. */
  clientUri?: string;
  /** `logo_uri`. */
  logoUri?: string;
  /**
   * `application_type` (default: `"native"` for loopback or custom-scheme redirect URIs,
   * `"web"` otherwise).
   */
  applicationType?: "native" | "web";
  /** `software_id`. */
  softwareId?: string;
  /** `software_version`. */
  softwareVersion?: string;
}

/**
 * The token endpoint authentication method to ask for in registration: `none` (a public
 * client) when the server allows it, else a client secret method it lists.
 *
 * @param metadata The authorization server metadata.
 * @returns The method.
 *
 * @example
 * ```ts
 * import { registrationAuthMethod } from "./dynamic_registration.ts";
 *
 * const metadata = { issuer: "https://as.example.com", token_endpoint_auth_methods_supported: ["client_secret_post"] };
 * if (registrationAuthMethod(metadata) !== "client_secret_post") throw new Error();
 * ```
 */
export function registrationAuthMethod(
  metadata: AuthorizationServerMetadata,
): "none" | "client_secret_basic" | "client_secret_post" {
  const supported = metadata.token_endpoint_auth_methods_supported ?? ["client_secret_basic"];
  if (supported.includes("none")) return "none";
  if (supported.includes("client_secret_basic")) return "client_secret_basic";
  if (supported.includes("client_secret_post")) return "client_secret_post";
  return "none";
}

/**
 * Builds the dynamic registration request body (RFC 7591 client metadata).
 *
 * @param metadata The authorization server metadata.
 * @param redirectUris The redirect URIs to register.
 * @param client Names and `application_type`.
 * @returns The JSON body.
 *
 * @example
 * ```ts
 * import { registrationBody } from "./dynamic_registration.ts";
 *
 * const body = registrationBody({ issuer: "https://as.example.com" }, ["http://127.0.0.1:8765/callback"]);
 * if (body.application_type !== "native" || !body.grant_types.includes("refresh_token")) throw new Error();
 * ```
 */
export function registrationBody(
  metadata: AuthorizationServerMetadata,
  redirectUris: string[],
  client: ClientMetadata = {},
  flow: "browser" | "device" = "browser",
): {
  client_name: string;
  redirect_uris: string[];
  grant_types: string[];
  response_types: string[];
  token_endpoint_auth_method: string;
  application_type: "native" | "web";
  [member: string]: unknown;
} {
  const body: ReturnType<typeof registrationBody> = {
    client_name: client.clientName ?? "Conduit MCP client",
    redirect_uris: redirectUris,
    grant_types: flow === "device"
      ? [DEVICE_GRANT, "refresh_token"]
      : ["authorization_code", "refresh_token"],
    response_types: flow === "device" ? [] : ["code"],
    token_endpoint_auth_method: registrationAuthMethod(metadata),
    application_type: client.applicationType ?? applicationType(redirectUris),
  };
  if (client.clientUri) body.client_uri = client.clientUri;
  if (client.logoUri) body.logo_uri = client.logoUri;
  if (client.softwareId) body.software_id = client.softwareId;
  if (client.softwareVersion) body.software_version = client.softwareVersion;
  return body;
}

function applicationType(redirectUris: string[]): "native" | "web" {
  return redirectUris.every((uri) => {
      try {
        const url = new URL(uri);
        return isLoopback(url) || (url.protocol !== "http:" && url.protocol !== "https:");
      } catch {
        return false;
      }
    })
    ? "native"
    : "web";
}

/**
 * Sends a dynamic client registration request.
 *
 * @param metadata The authorization server metadata (its `registration_endpoint`).
 * @param body The client metadata, e.g. from {@linkcode registrationBody}.
 * @param options `fetch` and `signal`.
 * @returns The response, unread.
 *
 * @example
 * ```ts
 * import { registrationRequest } from "./dynamic_registration.ts";
 *
 * const response = await registrationRequest(
 *   { issuer: "https://as.example.com", registration_endpoint: "https://as.example.com/register" },
 *   { redirect_uris: ["http://127.0.0.1:8765/callback"] },
 *   { fetch: async (input, init) => Response.json({ client_id: "c1", ...JSON.parse(String(init?.body)) }, { status: 201 }) },
 * );
 * if (response.status !== 201) throw new Error();
 * ```
 */
export async function registrationRequest(
  metadata: AuthorizationServerMetadata,
  body: Record<string, unknown>,
  options: HttpOptions = {},
): Promise<Response> {
  if (typeof metadata.registration_endpoint !== "string") {
    throw oauthError(
      "The authorization server has no registration_endpoint, and no client is configured " +
        "(pass a pre-registered client or a client metadata document URL)",
      "no_client",
    );
  }
  try {
    return await oauth.dynamicClientRegistrationRequest(
      metadata,
      body as Partial<oauth.Client>,
      o4wOptions(metadata.registration_endpoint, options),
    );
  } catch (error) {
    throw fromOAuthError(error, "the client registration", "registration_failed");
  }
}

/**
 * Checks a registration response (200 or 201 with a `client_id`).
 *
 * @param issuer The authorization server registered at.
 * @param response The response of {@linkcode registrationRequest}.
 * @param redirectUris The redirect URIs that were sent (used when the response omits them).
 * @returns The registration to keep.
 * @throws {McpError} kind `auth`, reason `registration_failed`.
 *
 * @example
 * ```ts
 * import { processRegistrationResponse } from "./dynamic_registration.ts";
 *
 * const registration = await processRegistrationResponse(
 *   "https://as.example.com",
 *   Response.json({ client_id: "c1", token_endpoint_auth_method: "none" }, { status: 201 }),
 *   ["http://127.0.0.1:8765/callback"],
 * );
 * if (registration.clientId !== "c1" || registration.clientSecret !== undefined) throw new Error();
 * ```
 */
export async function processRegistrationResponse(
  issuer: string,
  response: Response,
  redirectUris: string[],
  grantTypes?: string[],
): Promise<ClientRegistration> {
  if (response.status !== 200 && response.status !== 201) {
    const body = response.headers.get("content-type")?.includes("json")
      ? await jsonObject(response)
      : (discard(response), undefined);
    const error = typeof body?.error === "string" ? body.error : undefined;
    const description = typeof body?.error_description === "string"
      ? `: ${body.error_description.slice(0, 200)}`
      : "";
    throw oauthError(
      `The authorization server refused the client registration (HTTP ${response.status}${
        error ? `, ${error}${description}` : ""
      })`,
      "registration_failed",
      { status: response.status, error },
    );
  }
  const body = await jsonObject(response);
  if (body === undefined || typeof body.client_id !== "string" || body.client_id === "") {
    throw oauthError("The client registration response has no client_id", "registration_failed");
  }
  const registration: ClientRegistration = {
    issuer,
    clientId: body.client_id,
    redirectUris: Array.isArray(body.redirect_uris) &&
        body.redirect_uris.every((u) => typeof u === "string")
      ? body.redirect_uris as string[]
      : redirectUris,
  };
  if (typeof body.client_secret === "string" && body.client_secret !== "") {
    registration.clientSecret = body.client_secret;
    const expires = body.client_secret_expires_at;
    if (typeof expires === "number" && expires > 0) {
      registration.clientSecretExpiresAt = expires * 1000;
    }
  }
  if (typeof body.token_endpoint_auth_method === "string") {
    registration.tokenEndpointAuthMethod = body.token_endpoint_auth_method;
  }
  const granted = Array.isArray(body.grant_types) &&
      body.grant_types.every((g) => typeof g === "string")
    ? body.grant_types as string[]
    : grantTypes;
  if (granted !== undefined) registration.grantTypes = granted;
  return registration;
}

/** What {@linkcode clientMetadataDocument} builds a document from. */
export interface ClientMetadataDocumentOptions extends ClientMetadata {
  /** The document's own URL (it is the `client_id`). */
  clientId: string;
  /** The redirect URIs (the browser flow; none for a device-only client). */
  redirectUris?: string[];
  /** The login flows the client uses (default `["browser"]`): `"device"` lists its grant. */
  flows?: ("browser" | "device")[];
}

/**
 * A Client ID Metadata Document to publish at `clientId` (the `clientMetadataUrl` option):
 * a public client whose grant types are those of the flows it uses, the device grant
 * (RFC 8628) included when the device flow is one of them.
 *
 * @param options The URL, names, redirect URIs and flows.
 * @returns The JSON document.
 *
 * @example
 * ```ts
 * import { clientMetadataDocument, DEVICE_GRANT } from "./dynamic_registration.ts";
 *
 * const doc = clientMetadataDocument({
 *   clientId: "https://app.example.com/oauth/client.json",
 *   clientName: "Example agent",
 *   flows: ["device"],
 * });
 * if (!doc.grant_types.includes(DEVICE_GRANT) || doc.redirect_uris.length !== 0) throw new Error();
 * ```
 */
export function clientMetadataDocument(options: ClientMetadataDocumentOptions): {
  client_id: string;
  client_name: string;
  redirect_uris: string[];
  grant_types: string[];
  response_types: string[];
  token_endpoint_auth_method: "none";
  [member: string]: unknown;
} {
  const flows = options.flows ?? ["browser"];
  const browser = flows.includes("browser");
  const grants = [
    ...(browser ? ["authorization_code"] : []),
    ...(flows.includes("device") ? [DEVICE_GRANT] : []),
    "refresh_token",
  ];
  const doc: ReturnType<typeof clientMetadataDocument> = {
    client_id: options.clientId,
    client_name: options.clientName ?? "Conduit MCP client",
    redirect_uris: browser ? [...options.redirectUris ?? []] : [],
    grant_types: grants,
    response_types: browser ? ["code"] : [],
    token_endpoint_auth_method: "none",
  };
  if (options.clientUri) doc.client_uri = options.clientUri;
  if (options.logoUri) doc.logo_uri = options.logoUri;
  if (options.softwareId) doc.software_id = options.softwareId;
  if (options.softwareVersion) doc.software_version = options.softwareVersion;
  return doc;
}

/**
 * The conformance adapter's OAuth mapping: scenario name and `MCP_CONFORMANCE_CONTEXT` →
 * the transport's public `auth` option. No OAuth logic lives here; the library does it.
 *
 * The runner's mock authorization server answers `/authorize` with a 302 to the redirect
 * URI (carrying `code`, `state` and maybe `iss`), so the "browser" here is one `fetch` with
 * `redirect: "manual"` whose `Location` is handed back as the callback URL.
 *
 * @module
 */

import { idJagAssertion } from "../oauth/enterprise.ts";
import type { ClientCredentialsOptions, OAuthOptions } from "../oauth/options.ts";

type Json = Record<string, unknown>;

/** The redirect URI registered with the mock servers (nothing listens on it). */
const REDIRECT_URI = "http://localhost:3000/callback";
/** The Client ID Metadata Document URL the runner expects (never fetched by it). */
const CIMD_URL = "https://conformance-test.local/client-metadata.json";

/** What the adapter passes as `http.auth`. */
export type ConformanceAuth =
  | { oauth: OAuthOptions }
  | { clientCredentials: ClientCredentialsOptions };

/** Follows the mock's `/authorize` redirect and returns where it points (the callback URL). */
async function followAuthorization(url: URL): Promise<string> {
  const response = await fetch(url, { redirect: "manual" });
  await response.body?.cancel();
  const location = response.headers.get("location");
  if (location === null) {
    throw new Error(`the authorization endpoint answered ${response.status} without a redirect`);
  }
  return new URL(location, url).href;
}

function text(context: Json, key: string): string | undefined {
  const value = context[key];
  return typeof value === "string" && value !== "" ? value : undefined;
}

/**
 * The `auth` option for an `auth/*` scenario, or `undefined` for the others.
 *
 * @param scenario `MCP_CONFORMANCE_SCENARIO`.
 * @param context `MCP_CONFORMANCE_CONTEXT`, parsed (may hold secrets and keys: never print it).
 * @returns The auth form.
 */
export function conformanceAuth(scenario: string, context: Json): ConformanceAuth | undefined {
  if (!scenario.startsWith("auth/")) return undefined;
  const clientId = text(context, "client_id");
  switch (scenario) {
    case "auth/client-credentials-basic":
      return {
        clientCredentials: { clientId: clientId!, clientSecret: text(context, "client_secret") },
      };
    case "auth/client-credentials-jwt":
      return {
        clientCredentials: {
          clientId: clientId!,
          privateKey: text(context, "private_key_pem"),
          algorithm: text(context, "signing_algorithm"),
        },
      };
    case "auth/wif-jwt-bearer":
      return { clientCredentials: { clientId: clientId!, assertion: text(context, "valid_jwt") } };
    case "auth/enterprise-managed-authorization":
      return {
        clientCredentials: {
          clientId: clientId!,
          clientSecret: text(context, "client_secret"),
          assertion: idJagAssertion({
            tokenEndpoint: text(context, "idp_token_endpoint")!,
            idToken: text(context, "idp_id_token")!,
            clientId: text(context, "idp_client_id"),
          }),
        },
      };
  }
  const oauth: OAuthOptions = {
    redirectUri: REDIRECT_URI,
    clientMetadataUrl: CIMD_URL,
    clientMetadata: { clientName: "conduit-mcp-conformance" },
    onAuthorizationUrl: followAuthorization,
  };
  if (clientId !== undefined) {
    oauth.client = { clientId, clientSecret: text(context, "client_secret") };
    const issuer = text(context, "issuer");
    if (issuer !== undefined) oauth.client.issuer = issuer;
  }
  return { oauth };
}

/**
 * Enterprise-managed authorization (SEP-990): the user's identity provider turns the ID
 * token of their enterprise login into an Identity Assertion JWT Authorization Grant
 * (ID-JAG) for the MCP server's authorization server (OAuth 2.0 Token Exchange, RFC 8693),
 * which the client then presents in the JWT bearer grant. Use it as the `assertion` of the
 * `clientCredentials` form.
 *
 * @module
 */

import type { AssertionContext, AssertionSource } from "./client_credentials.ts";
import { checkKeys } from "../protocol/option_keys.ts";
import { checkEndpoint, discard, type FetchLike, jsonObject, oauthError, send } from "./_util.ts";

/** The token type of an ID-JAG. */
export const ID_JAG_TOKEN_TYPE = "urn:ietf:params:oauth:token-type:id-jag";
const TOKEN_EXCHANGE = "urn:ietf:params:oauth:grant-type:token-exchange";
const ID_TOKEN_TYPE = "urn:ietf:params:oauth:token-type:id_token";

/** Options for {@linkcode idJagAssertion}. */
export interface IdJagOptions {
  /** The identity provider's token endpoint. */
  tokenEndpoint: string;
  /** The user's ID token from the identity provider (or a function returning a current one). */
  idToken: string | (() => string | Promise<string>);
  /** The client's id at the identity provider. */
  clientId?: string;
  /** The client's secret at the identity provider (sent with `client_secret_basic`). */
  clientSecret?: string;
  /** The `fetch` to use. */
  fetch?: FetchLike;
}

/**
 * Builds the token exchange request for an ID-JAG.
 *
 * @param options The identity provider and the ID token.
 * @param idToken The ID token to exchange.
 * @param context Which authorization server (audience) and resource the grant is for.
 * @returns The form body and headers.
 *
 * @example
 * ```ts
 * import { idJagRequest } from "./enterprise.ts";
 *
 * const { body } = idJagRequest(
 *   { tokenEndpoint: "https://idp.example.com/token", idToken: "id-token", clientId: "app" },
 *   "id-token",
 *   { issuer: "https://as.example.com", tokenEndpoint: "https://as.example.com/token", resource: "https://mcp.example.com/mcp" },
 * );
 * if (body.get("audience") !== "https://as.example.com" || body.get("requested_token_type") !== "urn:ietf:params:oauth:token-type:id-jag") {
 *   throw new Error();
 * }
 * ```
 */
export function idJagRequest(
  options: IdJagOptions,
  idToken: string,
  context: AssertionContext,
): { body: URLSearchParams; headers: Headers } {
  const body = new URLSearchParams({
    grant_type: TOKEN_EXCHANGE,
    requested_token_type: ID_JAG_TOKEN_TYPE,
    subject_token: idToken,
    subject_token_type: ID_TOKEN_TYPE,
    audience: context.issuer,
    resource: context.resource,
  });
  if (context.scope) body.set("scope", context.scope);
  const headers = new Headers({
    "content-type": "application/x-www-form-urlencoded",
    accept: "application/json",
  });
  if (options.clientId !== undefined && options.clientSecret !== undefined) {
    const encode = (value: string) => encodeURIComponent(value).replace(/%20/g, "+");
    headers.set(
      "authorization",
      `Basic ${btoa(`${encode(options.clientId)}:${encode(options.clientSecret)}`)}`,
    );
  } else if (options.clientId !== undefined) body.set("client_id", options.clientId);
  return { body, headers };
}

/**
 * Checks a token exchange response: 200 with an ID-JAG (`issued_token_type` id-jag).
 *
 * @param response The identity provider's response.
 * @returns The ID-JAG.
 * @throws {McpError} kind `auth`, reason `assertion_failed`, with the OAuth `error`.
 *
 * @example
 * ```ts
 * import { processIdJagResponse } from "./enterprise.ts";
 *
 * const jag = await processIdJagResponse(Response.json({
 *   access_token: "jag",
 *   issued_token_type: "urn:ietf:params:oauth:token-type:id-jag",
 *   token_type: "N_A",
 * }));
 * if (jag !== "jag") throw new Error();
 * ```
 */
export async function processIdJagResponse(response: Response): Promise<string> {
  if (response.status !== 200) {
    const body = response.headers.get("content-type")?.includes("json")
      ? await jsonObject(response)
      : (discard(response), undefined);
    const error = typeof body?.error === "string" ? body.error : undefined;
    throw oauthError(
      `The identity provider refused the token exchange (HTTP ${response.status}${
        error ? `, ${error}` : ""
      })`,
      "assertion_failed",
      { status: response.status, error },
    );
  }
  const body = await jsonObject(response);
  if (
    typeof body?.access_token !== "string" || body.access_token === "" ||
    body.issued_token_type !== ID_JAG_TOKEN_TYPE
  ) {
    throw oauthError("The identity provider did not issue an ID-JAG", "assertion_failed");
  }
  return body.access_token;
}

/**
 * An assertion source that exchanges the user's ID token for an ID-JAG at the identity
 * provider, for the authorization server and resource it is asked for.
 *
 * @param options The identity provider's token endpoint, the ID token, the client there.
 * @returns The `assertion` for the `clientCredentials` form.
 *
 * @example
 * ```ts ignore
 * import { idJagAssertion } from "./enterprise.ts";
 *
 * const auth = {
 *   clientCredentials: {
 *     clientId: "mcp-client",
 *     clientSecret: "secret-at-the-mcp-authorization-server",
 *     assertion: idJagAssertion({ tokenEndpoint: "https://idp.example.com/token", idToken, clientId: "app" }),
 *   },
 * };
 * ```
 */
export function idJagAssertion(options: IdJagOptions): AssertionSource {
  if (typeof options?.tokenEndpoint !== "string") {
    throw new TypeError("options.tokenEndpoint must be a URL string");
  }
  checkKeys(
    options,
    ["tokenEndpoint", "idToken", "clientId", "clientSecret", "fetch"],
    "idJagAssertion options",
  );
  const endpoint = new URL(options.tokenEndpoint);
  if (typeof options.idToken !== "string" && typeof options.idToken !== "function") {
    throw new TypeError("options.idToken must be a string or a function");
  }
  return async (context) => {
    checkEndpoint(endpoint, "identity provider token endpoint");
    const idToken = typeof options.idToken === "string" ? options.idToken : await options.idToken();
    const { body, headers } = idJagRequest(options, idToken, context);
    const response = await send(
      endpoint,
      { method: "POST", headers, body, redirect: "manual" },
      { fetch: options.fetch, signal: context.signal },
      "identity provider",
    );
    return await processIdJagResponse(response);
  };
}

/**
 * OAuth 2.1 for MCP servers over HTTP, as fetch middleware: {@linkcode withOAuth} (a user
 * logs in: authorization code + PKCE) and {@linkcode withClientCredentials} (a service acts
 * for itself), token stores (memory, Deno.Kv), the loopback redirect receiver, and the
 * building blocks (discovery, registration, authorization, token requests, DPoP) as
 * request/response pairs.
 *
 * Most hosts pass the forms to the transport instead:
 * `streamableHttp(url, { auth: { oauth: { … } } })`.
 *
 * @example Log in through the system browser, keep tokens in Deno.Kv
 * ```ts ignore
 * import { kvTokenStore, loopbackCallback, withOAuth } from "./mod.ts";
 *
 * const oauth = withOAuth({
 *   store: kvTokenStore(await Deno.openKv("./tokens.db")),
 *   callback: loopbackCallback({ port: 33418 }),
 *   onAuthorizationUrl: (url) => console.log(`Open ${url} to sign in`),
 * });
 * const response = await oauth(fetch)("https://mcp.example.com/mcp", { method: "POST", body: "{}" });
 * ```
 *
 * @module
 */

export { type OAuthMiddleware, withClientCredentials, withOAuth } from "./middleware.ts";
export { handleCallback, type HandleCallbackOptions } from "./handle_callback.ts";
export {
  type AuthorizationUrlContext,
  type CallbackListener,
  type CallbackReceiver,
  type ClientCredentialsOptions,
  type CommonOAuthOptions,
  type DeviceCode,
  type LoginFlow,
  type OAuthOptions,
} from "./options.ts";
export { type AuthState, type AuthStatus, type LoginPrompt } from "./auth_status.ts";
export { checkClientCredentialsOptions, checkOAuthOptions } from "./options_check.ts";
export {
  type LoopbackCallback,
  loopbackCallback,
  type LoopbackCallbackOptions,
  type LoopbackListener,
} from "./callback.ts";
export * from "./_store_exports.ts";
export { type KvKeyPart, type KvLike, kvTokenStore, type KvTokenStoreOptions } from "./kv_store.ts";
export { redisTokenStore, type RedisTokenStoreOptions } from "./redis_store.ts";
export {
  type AuthChallenge,
  parseChallenges,
  readChallenge,
  type ResourceChallenge,
  splitScope,
} from "./challenge.ts";
export { discover, type DiscoverOptions, type Discovery, metadataRequest } from "./discovery.ts";
export {
  processProtectedResourceMetadataResponse,
  type ProtectedResourceMetadata,
  protectedResourceMetadataUrls,
  resourceMatches,
} from "./resource_metadata.ts";
export {
  type AuthorizationServerMetadata,
  authorizationServerMetadataUrls,
  defaultAuthorizationServerMetadata,
  processAuthorizationServerMetadataResponse,
} from "./server_metadata.ts";
export {
  type PreRegisteredClient,
  resolveClient,
  type ResolveClientOptions,
  type TokenEndpointAuthMethod,
} from "./registration.ts";
export {
  type ClientMetadata,
  clientMetadataDocument,
  type ClientMetadataDocumentOptions,
  DEVICE_GRANT,
  processRegistrationResponse,
  registrationAuthMethod,
  registrationBody,
  registrationRequest,
} from "./dynamic_registration.ts";
export {
  type AuthorizationRequestInputs,
  callbackState,
  type ScopeInputs,
  selectScopes,
  startAuthorization,
  validateCallback,
} from "./authorize.ts";
export {
  chooseAuthMethod,
  type ClientAuthentication,
  clientAuthentication,
  type TokenClient,
} from "./client_auth.ts";
export {
  authorizationCodeRequest,
  type DpopHandle,
  refreshRequest,
  type TokenContext,
  withNonceRetry,
} from "./token.ts";
export { type GrantKind, isFresh, processTokenResponse } from "./token_response.ts";
export {
  type AssertionContext,
  type AssertionSource,
  checkClientCredentials,
  type ClientCredentials,
  JWT_BEARER_GRANT,
  tokenClient,
} from "./client_credentials.ts";
export { clientCredentialsRequest, clientCredentialsToken } from "./client_credentials_grant.ts";
export {
  ID_JAG_TOKEN_TYPE,
  idJagAssertion,
  type IdJagOptions,
  idJagRequest,
  processIdJagResponse,
} from "./enterprise.ts";
export {
  createDpopSigner,
  dpopAlgorithm,
  type DpopSigner,
  type DpopSignerOptions,
} from "./dpop.ts";
export type { FetchLike, HttpOptions } from "./_util.ts";

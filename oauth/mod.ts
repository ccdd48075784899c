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

export {
  handleCallback,
  type HandleCallbackOptions,
  type OAuthMiddleware,
  withClientCredentials,
  withOAuth,
} from "./middleware.ts";
export {
  type AuthorizationUrlContext,
  type CallbackListener,
  type CallbackReceiver,
  checkClientCredentialsOptions,
  checkOAuthOptions,
  type ClientCredentialsOptions,
  type CommonOAuthOptions,
  type OAuthOptions,
} from "./options.ts";
export {
  type LoopbackCallback,
  loopbackCallback,
  type LoopbackCallbackOptions,
  type LoopbackListener,
} from "./callback.ts";
export {
  type ClientRegistration,
  type MaybePromise,
  memoryTokenStore,
  type MemoryTokenStoreOptions,
  type PendingAuthorization,
  type TokenKey,
  type TokenSet,
  type TokenStore,
} from "./store.ts";
export { type KvKeyPart, type KvLike, kvTokenStore, type KvTokenStoreOptions } from "./kv_store.ts";
export {
  type AuthChallenge,
  parseChallenges,
  readChallenge,
  type ResourceChallenge,
  splitScope,
} from "./challenge.ts";
export {
  discover,
  type DiscoverOptions,
  type Discovery,
  metadataRequest,
  processProtectedResourceMetadataResponse,
  type ProtectedResourceMetadata,
  protectedResourceMetadataUrls,
  resourceMatches,
} from "./discovery.ts";
export {
  type AuthorizationServerMetadata,
  authorizationServerMetadataUrls,
  defaultAuthorizationServerMetadata,
  processAuthorizationServerMetadataResponse,
} from "./server_metadata.ts";
export {
  type ClientMetadata,
  type PreRegisteredClient,
  processRegistrationResponse,
  registrationAuthMethod,
  registrationBody,
  registrationRequest,
  resolveClient,
  type ResolveClientOptions,
  type TokenEndpointAuthMethod,
} from "./registration.ts";
export {
  type AuthorizationRequestInputs,
  callbackState,
  type ScopeInputs,
  selectScopes,
  startAuthorization,
  validateCallback,
} from "./authorize.ts";
export {
  authorizationCodeRequest,
  chooseAuthMethod,
  type ClientAuthentication,
  clientAuthentication,
  type DpopHandle,
  type GrantKind,
  isFresh,
  processTokenResponse,
  refreshRequest,
  type TokenClient,
  type TokenContext,
  withNonceRetry,
} from "./token.ts";
export {
  type AssertionContext,
  type AssertionSource,
  checkClientCredentials,
  type ClientCredentials,
  clientCredentialsRequest,
  clientCredentialsToken,
  JWT_BEARER_GRANT,
  tokenClient,
} from "./client_credentials.ts";
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

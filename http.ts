/**
 * The edge entry of the MCP client: the same client, with only the Streamable HTTP
 * transport. Nothing in its module graph needs Deno, Bun, a process or a file system.
 *
 * @example Pick a protocol version
 * ```ts
 * import { pickVersion } from "./http.ts";
 *
 * if (pickVersion(["2026-07-28"]) !== "2026-07-28") throw new Error("unexpected");
 * ```
 *
 * @module
 */

export * from "./protocol/capabilities.ts";
export * from "./protocol/discover.ts";
export * from "./protocol/errors.ts";
export * from "./protocol/headers.ts";
export * from "./protocol/jsonrpc.ts";
export * from "./protocol/meta.ts";
export * from "./protocol/negotiation.ts";
export * from "./protocol/versions.ts";

export { connectClient, createClient } from "./client/client.ts";
export { connect, type HttpConnectOptions, type HttpConnectTarget } from "./client/connect_http.ts";
export * from "./client/types.ts";
export * from "./transports/transport.ts";
export {
  type FetchLike,
  type HttpAuth,
  type SetAuthOptions,
  streamableHttp,
  type StreamableHttpOptions,
  type StreamableHttpTransport,
} from "./transports/streamable_http.ts";
export {
  handleCallback,
  type HandleCallbackOptions,
  type OAuthMiddleware,
  withClientCredentials,
  withOAuth,
} from "./oauth/middleware.ts";
export type {
  AuthorizationUrlContext,
  CallbackListener,
  CallbackReceiver,
  ClientCredentialsOptions,
  CommonOAuthOptions,
  OAuthOptions,
} from "./oauth/options.ts";
export type {
  AssertionContext,
  AssertionSource,
  ClientCredentials,
} from "./oauth/client_credentials.ts";
export type { ClientMetadata, PreRegisteredClient } from "./oauth/registration.ts";
export {
  type ClientRegistration,
  type MaybePromise,
  memoryTokenStore,
  type MemoryTokenStoreOptions,
  type PendingAuthorization,
  type TokenKey,
  type TokenSet,
  type TokenStore,
} from "./oauth/store.ts";
export { idJagAssertion, type IdJagOptions } from "./oauth/enterprise.ts";

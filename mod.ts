/**
 * A Model Context Protocol (MCP) client for Deno, Bun and edge workers.
 *
 * Speaks the modern era (2026-07-28: stateless, `server/discover`, per-request `_meta`)
 * and the legacy era (2025-11-25 and 2025-06-18: the `initialize` handshake).
 *
 * @example Pick a protocol version
 * ```ts
 * import { era, pickVersion } from "./mod.ts";
 *
 * const version = pickVersion(["2025-11-25", "2025-06-18"]);
 * if (version !== "2025-11-25" || era(version) !== "legacy") throw new Error("unexpected");
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
export * from "./transports/transport.ts";
export {
  type FetchLike,
  type HttpAuth,
  type SetAuthOptions,
  streamableHttp,
  type StreamableHttpOptions,
  type StreamableHttpTransport,
} from "./transports/streamable_http.ts";
export { type InheritEnv, SAFE_ENV_NAMES } from "./runtime/env.ts";
export {
  type ChildProcess,
  type ExitStatus,
  type KillSignal,
  type SpawnOptions,
  spawnProcess,
} from "./runtime/spawn.ts";
export {
  stdio,
  type StdioLink,
  type StdioOptions,
  type StdioStderr,
  type StdioTransport,
} from "./transports/stdio.ts";

export { connectClient, createClient } from "./client/client.ts";
export { connect, type ConnectOptions, type ConnectTarget } from "./client/connect.ts";
export * from "./client/types.ts";
export {
  inProcess,
  type InProcessConnection,
  type InProcessPeer,
  type InProcessServer,
} from "./transports/in_process.ts";
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
export {
  type LoopbackCallback,
  loopbackCallback,
  type LoopbackCallbackOptions,
  type LoopbackListener,
} from "./oauth/callback.ts";
export {
  type KvKeyPart,
  type KvLike,
  kvTokenStore,
  type KvTokenStoreOptions,
} from "./oauth/kv_store.ts";
export { idJagAssertion, type IdJagOptions } from "./oauth/enterprise.ts";

/**
 * Private: what both entries export — the protocol core, the client, the transport contract,
 * the Streamable HTTP transport, the edge-safe part of OAuth and the edge-safe cache stores
 * (memory and Redis). `mod.ts` adds stdio,
 * spawning, the in-process transport, its `connect` and the OAuth pieces that need a
 * runtime; `http.ts` adds its HTTP-only `connect`. Nothing here may reach `runtime/`, stdio,
 * Hono or `oauth/callback.ts` (tests/edge/graph_test.ts checks `http.ts`'s graph).
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
export * from "./protocol/trace_context.ts";
export * from "./protocol/versions.ts";
export { isTask, type Task, TASKS_EXTENSION, type TaskStatus } from "./protocol/tasks.ts";

export { connectClient, createClient, DEFAULT_READY_TIMEOUT } from "./client/client.ts";
export { isContent, resultText } from "./client/content.ts";
export * from "./client/types.ts";
export type * from "./tracing/types.ts";
export * from "./transports/transport.ts";
export {
  type FetchLike,
  type HttpAuth,
  type SetAuthOptions,
  streamableHttp,
  type StreamableHttpOptions,
  type StreamableHttpTransport,
} from "./transports/streamable_http.ts";
export { type OAuthMiddleware, withClientCredentials, withOAuth } from "./oauth/middleware.ts";
export { handleCallback, type HandleCallbackOptions } from "./oauth/handle_callback.ts";
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
export type { ClientMetadata } from "./oauth/dynamic_registration.ts";
export type { PreRegisteredClient } from "./oauth/registration.ts";
export * from "./oauth/_store_exports.ts";
export { idJagAssertion, type IdJagOptions } from "./oauth/enterprise.ts";
export { type CacheKey, type CacheStore } from "./cache/store.ts";
export type { CacheTarget } from "./cache/digest.ts";
export { memoryStore, type MemoryStoreOptions } from "./cache/memory.ts";
export { type RedisCommand, redisStore, type RedisStoreOptions } from "./cache/redis.ts";
export { redisTokenStore, type RedisTokenStoreOptions } from "./oauth/redis_store.ts";
export { type SanitizeOptions, sanitizeText } from "./protocol/text.ts";
export { DEFAULT_MAX_CHARS } from "./governance/shape_names.ts";
export type {
  ShapeDefaults,
  ShapedResult,
  ShapeOptions,
  SpillInfo,
  SpillOptions,
  SpillSetting,
} from "./governance/shape.ts";
export type * from "./adapters/types.ts";
export * from "./adapters/openai.ts";
export * from "./adapters/anthropic.ts";
export * from "./adapters/ai_sdk.ts";
export * from "./governance/_exports.ts";

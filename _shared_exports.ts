/**
 * Private: what both entries export — the protocol core, the client, the transport contract,
 * the Streamable HTTP transport, the memory cache store (its code loaded with its first
 * operation), and the types of the layers above the wire (OAuth, governance, shaping, the
 * adapters' kits). Their code lives in sub-entries
 * (`./oauth`, `./governance`, `./adapters`, `./cache`, `./hub`), so a plain client loads
 * only the protocol, its transport and the client core. `mod.ts` adds stdio, spawning, the
 * in-process transport, its `connect` and the file store; `http.ts` adds its HTTP-only
 * `connect`. Nothing here may reach `runtime/`, stdio, Hono or `oauth/callback.ts`
 * (tests/edge/graph_test.ts checks `http.ts`'s graph).
 *
 * @module
 */

import {
  type CacheStore,
  checkKey,
  checkSet,
  memoryBounds,
  type MemoryStoreOptions,
} from "./cache/store.ts";
import { lazyStore } from "./cache/lazy_store.ts";

export * from "./protocol/capabilities.ts";
export * from "./protocol/discover.ts";
export {
  isMcpError,
  MCP_ERROR_KINDS,
  McpError,
  type McpErrorInit,
  type McpErrorKind,
} from "./protocol/errors.ts";
export * from "./protocol/headers.ts";
export * from "./protocol/param_headers.ts";
export * from "./protocol/jsonrpc.ts";
export { decodeMessage } from "./protocol/decode.ts";
export * from "./protocol/meta.ts";
export * from "./protocol/negotiation.ts";
export * from "./protocol/trace_context.ts";
export * from "./protocol/versions.ts";
export { isTask, type Task, type TaskStatus } from "./protocol/tasks.ts";

export { connectClient, createClient, DEFAULT_READY_TIMEOUT } from "./client/client.ts";
export { isContent, resultText } from "./client/content.ts";
export type * from "./client/types.ts";
export type * from "./tracing/types.ts";
export type * from "./transports/transport.ts";
export {
  type FetchLike,
  type HttpAuth,
  type SetAuthOptions,
  streamableHttp,
  type StreamableHttpOptions,
  type StreamableHttpTransport,
} from "./transports/streamable_http.ts";
export type { OAuthMiddleware } from "./oauth/middleware.ts";
export type { HandleCallbackOptions } from "./oauth/handle_callback.ts";
export type {
  AuthorizationUrlContext,
  CallbackListener,
  CallbackReceiver,
  ClientCredentialsOptions,
  CommonOAuthOptions,
  DeviceCode,
  LoginFlow,
  OAuthOptions,
} from "./oauth/options.ts";
export type { AuthState, AuthStatus, LoginPrompt } from "./oauth/auth_status.ts";
export type {
  AssertionContext,
  AssertionSource,
  ClientCredentials,
} from "./oauth/client_credentials.ts";
export type { ClientMetadata } from "./oauth/dynamic_registration.ts";
export type { PreRegisteredClient } from "./oauth/registration.ts";
export type {
  ClientRegistration,
  MaybePromise,
  MemoryTokenStoreOptions,
  PendingAuthorization,
  TokenKey,
  TokenSet,
  TokenStore,
} from "./oauth/store.ts";
export type { IdJagOptions } from "./oauth/enterprise.ts";
export { type CacheKey, type CacheStore } from "./cache/store.ts";
export type { CacheTarget, CacheTargetWants } from "./cache/digest.ts";
export type { MemoryStoreOptions } from "./cache/store.ts";
export type { RedisCommand, RedisStoreOptions } from "./cache/redis.ts";
export type { RedisTokenStoreOptions } from "./oauth/redis_store.ts";
export { type SanitizeOptions, sanitizeText } from "./protocol/text.ts";
export type {
  ShapeDefaults,
  ShapedResult,
  ShapeOptions,
  SpillInfo,
  SpillOptions,
  SpillSetting,
} from "./governance/shape.ts";
export type * from "./adapters/types.ts";
export type {
  ApprovalAnswer,
  ApprovalRequest,
  Approver,
  GovernanceOptions,
  PolicyOptions,
} from "./governance/options.ts";
export type { CompiledFilter, ToolFilter } from "./governance/filter.ts";
export type { Pattern } from "./governance/glob.ts";
export type {
  Awaitable,
  BeforeOutcome,
  CallRequest,
  Hooks,
  ReadOutcome,
} from "./governance/hooks.ts";
export type {
  AnnotationMatch,
  Decision,
  PolicyKind,
  PolicyRequest,
  PolicyRule,
  PolicyVerdict,
} from "./governance/policy.ts";
export type { CompiledSchema, SchemaIssue } from "./governance/validate.ts";
export type { ChangeEntry, PinnedDefinition, ToolChange } from "./governance/pin.ts";
export type { Finish, Governance, Scope, ToolCall } from "./governance/stages.ts";
export type { Caller, GovernanceContext } from "./governance/types.ts";

/**
 * A {@linkcode CacheStore} in memory, shared by every client given the same store. Values
 * are kept as given (callers treat what they read as read-only). The options and each key
 * are checked at once; the store's code loads with its first operation.
 *
 * @param options The bound and the clock.
 * @returns The store.
 * @throws {TypeError} On a bad option.
 *
 * @example Share one listing cache between two clients of the same server
 * ```ts
 * import { memoryStore } from "./mod.ts";
 *
 * const store = memoryStore({ maxEntries: 2 });
 * await store.set(["a"], 1, 60_000);
 * await store.set(["b"], 2, 60_000);
 * await store.get(["a"]); // "a" is now the most recently used
 * await store.set(["c"], 3, 60_000); // so "b" goes
 * if (await store.get(["b"]) !== undefined || await store.get(["a"]) !== 1) throw new Error();
 * ```
 */
export function memoryStore(options: MemoryStoreOptions = {}): CacheStore {
  const { max, maxBytes } = memoryBounds(options);
  const inner = lazyStore(
    async () => (await import("./cache/memory.ts")).memoryStore(options),
    max !== Infinity || maxBytes !== Infinity,
  );
  return {
    evicts: inner.evicts,
    get: (key) => (checkKey(key), inner.get(key)),
    set: (key, value, ttlMs) => (checkSet(key, ttlMs), inner.set(key, value, ttlMs)),
    delete: (key) => (checkKey(key), inner.delete(key)),
    deletePrefix: (prefix) => (checkKey(prefix, true), inner.deletePrefix(prefix)),
  };
}

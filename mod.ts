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

export * from "./_shared_exports.ts";

export { connect, type ConnectOptions, type ConnectTarget } from "./client/connect.ts";
export { type InheritEnv, SAFE_ENV_NAMES } from "./runtime/env.ts";
export {
  type ChildProcess,
  type ExitStatus,
  type KillSignal,
  type SpawnOptions,
  spawnProcess,
} from "./runtime/spawn.ts";
export {
  type Containment,
  type SandboxOptions,
  stdio,
  type StdioLink,
  type StdioOptions,
  type StdioStderr,
  type StdioTransport,
} from "./transports/stdio.ts";
export {
  inProcess,
  type InProcessConnection,
  type InProcessPeer,
  type InProcessServer,
} from "./transports/in_process.ts";
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
export { type CacheKvLike, denoKvStore, type DenoKvStoreOptions } from "./cache/deno_kv.ts";
// Many servers behind one object, and the server files hosts keep (mod.ts only: stdio).
export { hub } from "./hub/hub.ts";
export type * from "./hub/types.ts";
export {
  type ConfigInput,
  type HubConfig,
  loadConfig,
  type LoadConfigOptions,
} from "./hub/config.ts";
export { searchTools, type ToolMatch } from "./hub/search.ts";

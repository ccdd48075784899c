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
// Shaping a result you already have (the edge entry shapes through `shape: "llm"` only, so a
// plain edge client ships none of the shaping code).
export { shapeResult } from "./governance/shape.ts";
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
export type { FileStoreOptions, FolderLike } from "./cache/file_store.ts";
import type { FileStoreOptions } from "./cache/file_store.ts";
import type { CacheStore } from "./cache/store.ts";

/**
 * A {@linkcode CacheStore} in a folder of files on the local disk (made on first write,
 * mode `0700`; files `0600`), one file per entry, written whole and renamed into place;
 * every process on the machine that uses the folder shares it. `maxBytes` bounds the files
 * it keeps (default 256 MiB). Good for spilled results (`shape: { spill: fileStore(dir) }`)
 * and for a cache shared by local processes. Its code loads on first use.
 *
 * @param dir The folder.
 * @param options `maxBytes` and the clock.
 * @returns The store.
 * @throws {TypeError} When `dir` is not a non-empty path.
 *
 * @example
 * ```ts
 * import { fileStore } from "./mod.ts";
 *
 * const store = fileStore(await Deno.makeTempDir());
 * await store.set(["greeting"], "hello", 60_000);
 * if (await store.get(["greeting"]) !== "hello") throw new Error("unexpected");
 * ```
 */
export function fileStore(dir: string, options: FileStoreOptions = {}): CacheStore {
  if (typeof dir !== "string" || dir === "") {
    throw new TypeError("fileStore: dir must be a non-empty path");
  }
  let inner: Promise<CacheStore> | undefined;
  const store = () =>
    inner ??= Promise.all([import("./cache/file_store.ts"), import("./runtime/files.ts")])
      .then(([files, local]) => files.fileStoreOver(local.localFolder(dir), options));
  return {
    get: (key) => store().then((s) => s.get(key)),
    set: (key, value, ttlMs) => store().then((s) => s.set(key, value, ttlMs)),
    delete: (key) => store().then((s) => s.delete(key)),
    deletePrefix: (prefix) => store().then((s) => s.deletePrefix(prefix)),
  };
}
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

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

export * from "./_shared_exports.ts";

export { connect, type HttpConnectOptions, type HttpConnectTarget } from "./client/connect_http.ts";

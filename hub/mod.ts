/**
 * `@conduit/mcp/hub`: many servers behind one object, and the server files hosts keep
 * (Deno and Bun: its servers may be stdio children).
 *
 * - {@linkcode hub}: named servers behind one client-like object (`server__tool` names,
 *   routing, restarts, a lazy catalogue with its search meta-tools);
 * - {@linkcode loadConfig}: the servers of a host's config file (`mcpServers`, `servers`, …);
 * - {@linkcode searchTools}: the tool search the hub's lazy catalogue uses, over any list.
 *
 * The root entry (`@conduit/mcp`) keeps the hub's types; this entry holds its code, so a
 * plain client never loads it.
 *
 * @example Rank tools for a query
 * ```ts
 * import { searchTools } from "./mod.ts";
 *
 * const tools = [
 *   { name: "mail__send_email", description: "Send an email", inputSchema: { type: "object" } },
 *   { name: "weather__forecast", description: "Forecast the weather", inputSchema: { type: "object" } },
 * ];
 * if (searchTools(tools, "send an email", 1)[0]?.name !== "mail__send_email") {
 *   throw new Error("unexpected");
 * }
 * ```
 *
 * @module
 */

export { hub } from "./hub.ts";
export type * from "./types.ts";
export { type ConfigInput, type HubConfig, loadConfig, type LoadConfigOptions } from "./config.ts";
export { searchTools, type ToolMatch } from "./search.ts";

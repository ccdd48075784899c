/**
 * The public types of the client: its options (`client_options.ts`), the options of its
 * requests (`request_options.ts`), the {@linkcode McpClient} interface with what it reports
 * (`mcp_client.ts`), and the shapes of what it returns (`shapes.ts`).
 *
 * @module
 */

export type * from "./client_options.ts";
export type * from "./mcp_client.ts";
export type * from "./request_options.ts";
export type * from "./shapes.ts";

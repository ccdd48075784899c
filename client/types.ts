/**
 * The public types of the client: its options (`options.ts`), the options of its
 * requests (`request_options.ts`), the {@linkcode McpClient} interface with what it reports
 * (`api.ts`), and the shapes of what it returns (`shapes.ts`).
 *
 * @module
 */

export type * from "./options.ts";
export type * from "./api.ts";
export type * from "./request_options.ts";
export type * from "./shapes.ts";
export type * from "./task_api.ts";

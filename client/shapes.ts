/**
 * The shapes of what the server lists and returns (tools, prompts, resources, pages, tool
 * results, the arguments of `complete`), under the client's public names. They are the wire's
 * and live in `protocol/shapes.ts`.
 *
 * @module
 */

export type * from "../protocol/shapes.ts";

/**
 * The shapes every governance stage shares: the context a stage sees, and the plain tool
 * definition and result it works on (structural, so any tool source fits: one client, or a
 * hub's merged catalogue).
 *
 * @module
 */

import type { Tool, ToolResult } from "../protocol/shapes.ts";

export type { Tool, ToolResult };

/**
 * What every stage of a governed call (and a governed listing) sees.
 *
 * @example
 * ```ts
 * import type { GovernanceContext } from "./types.ts";
 *
 * const ctx: GovernanceContext = { principal: "alice", assigns: { team: "ops" }, server: "docs" };
 * if (ctx.server !== "docs") throw new Error("unexpected");
 * ```
 */
export interface GovernanceContext {
  /** Whom the call is made for (the key of "always allow" grants), when given. */
  principal?: string;
  /** Data of the caller's own (`{}` when none was given). */
  assigns: Record<string, unknown>;
  /** The server's name: the client's `name` option, else its own identity of what it connected to. */
  server: string;
  /** The tool's definition, once it is known (absent for prompts and resources). */
  tool?: Tool;
  /**
   * How the server process is contained (a stdio server's `status().containment`):
   * `"deno-permissions"`, `"bwrap"` or `"none"`; absent for HTTP and in-process servers.
   */
  containment?: "deno-permissions" | "bwrap" | "none";
}

/** Who a listing or call is for: the caller's `principal` and `assigns`. */
export interface Caller {
  /** Whom it is for. */
  principal?: string;
  /** Data of the caller's own. */
  assigns?: Record<string, unknown>;
}

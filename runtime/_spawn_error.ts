/**
 * Private: what a failed start of a child process means, from the error Deno or Bun threw.
 * A missing command and a refused permission can never succeed on a later attempt, so they
 * get their own reasons (the client gives up on them at once); the runtime's own words go
 * into the message.
 *
 * @module
 */

import { McpError } from "../protocol/errors.ts";

function detail(error: unknown): string {
  const message = (error as { message?: unknown } | null)?.message;
  return typeof message === "string" && message !== "" ? ` (${message})` : "";
}

/**
 * The error for a child process that could not be started.
 *
 * @param command The command (the message names it, never its arguments or environment).
 * @param error What the runtime threw.
 * @returns Kind `transport` with reason `command_not_found` (Deno's `NotFound`, `ENOENT`),
 * `permission_denied` (Deno's `NotCapable` or `PermissionDenied`, `EACCES`, `EPERM`) or
 * `spawn_failed`.
 */
export function spawnError(command: string, error: unknown): McpError {
  const { name, code } = (error ?? {}) as { name?: unknown; code?: unknown };
  if (name === "NotFound" || code === "ENOENT") {
    return new McpError(
      `Cannot start "${command}": the command (or the working directory) was not found` +
        detail(error),
      { kind: "transport", reason: "command_not_found", cause: error },
    );
  }
  if (
    name === "NotCapable" || name === "PermissionDenied" || code === "EACCES" ||
    code === "EPERM"
  ) {
    return new McpError(`Cannot start "${command}": permission denied${detail(error)}`, {
      kind: "transport",
      reason: "permission_denied",
      cause: error,
    });
  }
  return new McpError(`Cannot start "${command}"${detail(error)}`, {
    kind: "transport",
    reason: "spawn_failed",
    cause: error,
  });
}

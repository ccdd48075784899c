/**
 * Starts a sandboxed server's plan: this machine's facts (`runtime/host.ts`) into
 * {@linkcode planSandbox}, and a clear refusal when the sandbox is required and none
 * applies. Loaded by the stdio transport only when a server has a `sandbox`.
 *
 * @module
 */

import { McpError } from "../protocol/errors.ts";
import { findExecutable, hostPlatform, runningDeno } from "../runtime/host.ts";
import { type HostFacts, planSandbox, type SandboxPlan, type ServerCommand } from "./plan.ts";
import type { SandboxProfile } from "./profile.ts";

export type { PlannedSpawn, SandboxPlan } from "./plan.ts";

let facts: HostFacts | undefined;

/** This machine's facts, found once per process. */
export function hostFacts(): HostFacts {
  if (facts !== undefined) return facts;
  const { platform, arch } = hostPlatform();
  facts = { platform, arch };
  const deno = runningDeno() ?? findExecutable("deno");
  if (deno !== undefined) facts.deno = deno;
  if (platform === "linux") {
    const bwrap = findExecutable("bwrap");
    if (bwrap !== undefined) facts.bwrap = bwrap;
  }
  return facts;
}

/**
 * The plan for one start.
 *
 * @param profile The checked profile.
 * @param server The command, arguments, variables and folder.
 * @param host This machine's facts (default: found once per process).
 * @returns The plan, with a spawn.
 * @throws {McpError} kind `unavailable`, reason `sandbox_unavailable`, when the profile is
 *   `required` and no sandbox applies; the message says why.
 */
export function sandboxPlan(
  profile: SandboxProfile,
  server: ServerCommand,
  host: HostFacts = hostFacts(),
): SandboxPlan {
  const plan = planSandbox(profile, server, host);
  if (plan.spawn === undefined) {
    throw new McpError(
      `Cannot start "${server.command}" sandboxed: ${plan.unavailable ?? "no sandbox applies"}`,
      { kind: "unavailable", reason: "sandbox_unavailable", data: { platform: host.platform } },
    );
  }
  return plan;
}

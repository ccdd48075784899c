/**
 * Private: what the entries export of governance (`mod.ts` and `http.ts` alike: nothing here
 * needs a runtime).
 *
 * @module
 */

export { compileSchema, createGovernance } from "./create.ts";
export type { Finish, Governance, Scope, ToolCall } from "./stages.ts";
export type {
  ApprovalAnswer,
  ApprovalRequest,
  Approver,
  GovernanceOptions,
  PolicyOptions,
} from "./options.ts";
export { type CompiledFilter, compileFilter, type ToolFilter } from "./filter.ts";
export type { Pattern } from "./glob.ts";
export type { Awaitable, BeforeOutcome, CallRequest, Hooks, ReadOutcome } from "./hooks.ts";
export {
  type AnnotationMatch,
  type Decision,
  evaluatePolicy,
  type PolicyKind,
  type PolicyRequest,
  type PolicyRule,
  type PolicyVerdict,
} from "./policy.ts";
export type { CompiledSchema, SchemaIssue } from "./validate.ts";
export {
  type ChangeEntry,
  diffDefinitions,
  fingerprint,
  type PinnedDefinition,
  type ToolChange,
} from "./pin.ts";
export type { Caller, GovernanceContext } from "./types.ts";

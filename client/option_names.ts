/**
 * The names of `createClient`'s options, in one list: the option check reads it, and so
 * does the hub, to name a misspelt key of a server entry with the nearest right one.
 *
 * @module
 */

import { GOVERNANCE_KEYS } from "../governance/check.ts";

/**
 * Every option `createClient` takes.
 *
 * @example
 * ```ts
 * import { CLIENT_OPTION_NAMES } from "./option_names.ts";
 *
 * if (!CLIENT_OPTION_NAMES.includes("requestTimeout")) throw new Error("unexpected");
 * ```
 */
export const CLIENT_OPTION_NAMES: readonly string[] = Object.freeze([
  "transport",
  "protocol",
  "versions",
  "clientInfo",
  "handler",
  "requestTimeout",
  "probeTimeout",
  "reconnect",
  "samplingTools",
  "samplingContext",
  "rootsListChanged",
  "elicitationUrl",
  "maxRounds",
  "onWarning",
  "retry",
  "includeInstructions",
  "trusted",
  "cache",
  "legacyTtlMs",
  "tracer",
  "meter",
  "recordArguments",
  "shape",
  "name",
  "profile",
  "elicitation",
  ...GOVERNANCE_KEYS,
]);

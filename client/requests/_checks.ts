/**
 * Private: the checks the request methods share (request options, with a `TypeError` naming
 * the bad one; name arguments; result shapes) and the conversion of a method's options to
 * the connection's.
 *
 * @module
 */

import { McpError } from "../../protocol/errors.ts";
import { checkKeys } from "../../protocol/option_keys.ts";
import { isObject } from "../../protocol/json.ts";
import type { ConnectionRequestOptions } from "../connection/connection.ts";
import type { CallOptions, RequestOptions } from "../types.ts";

/**
 * A protocol error for a result that does not have the method's shape.
 *
 * @param method The method.
 * @param what What is wrong with the result.
 * @param data Data for the error.
 * @returns The error (kind `protocol`, reason `invalid_result`).
 */
export function invalid(method: string, what: string, data?: unknown): McpError {
  return new McpError(`The server's ${method} result is invalid: ${what}`, {
    kind: "protocol",
    reason: "invalid_result",
    data,
  });
}

/** The options every request method takes. */
const REQUEST_KEYS = ["signal", "timeout", "onProgress", "maxTotalTimeout"];

/**
 * Checks request options, throwing `TypeError` for a bad one or an unknown key.
 *
 * @param options The caller's options.
 * @param extra The method's own options (e.g. `cursor`), next to the request options.
 * @returns The same options.
 */
export function checkOptions<T extends RequestOptions>(
  options: T | undefined,
  extra: readonly string[] = [],
): T {
  if (options === undefined) return {} as T;
  if (!isObject(options)) throw new TypeError("options must be an object");
  for (const key in options) {
    // The common case (known keys only) builds no list; an unknown key gets the full message.
    if (REQUEST_KEYS.includes(key) || extra.includes(key) || !Object.hasOwn(options, key)) {
      continue;
    }
    checkKeys(options, [...REQUEST_KEYS, ...extra], "the request options");
  }
  const { timeout, maxTotalTimeout, signal, onProgress } = options;
  checkMilliseconds("timeout", timeout);
  checkMilliseconds("maxTotalTimeout", maxTotalTimeout);
  if (signal !== undefined && !(signal instanceof AbortSignal)) {
    throw new TypeError('option "signal" must be an AbortSignal');
  }
  if (onProgress !== undefined && typeof onProgress !== "function") {
    throw new TypeError('option "onProgress" must be a function');
  }
  return options;
}

/**
 * Checks an option that is a duration, throwing `TypeError` unless it is absent or a positive
 * number of milliseconds.
 *
 * @param key The option's name, for the error.
 * @param value Its value.
 */
export function checkMilliseconds(key: string, value: unknown): void {
  if (value !== undefined && !(typeof value === "number" && value > 0)) {
    throw new TypeError(`option "${key}" must be a positive number of milliseconds`);
  }
}

/**
 * Checks a name or URI argument, throwing `TypeError` unless it is a non-empty string.
 *
 * @param name The argument's name, for the error.
 * @param value The argument.
 * @returns The argument.
 */
export function nonEmpty(name: string, value: unknown): string {
  if (typeof value !== "string" || value === "") {
    throw new TypeError(`${name} must be a non-empty string`);
  }
  return value;
}

/**
 * Checks a tool call's name and arguments, throwing `TypeError` for a bad one.
 *
 * @param name The tool's name.
 * @param args Its arguments: absent or an object.
 */
export function checkToolCall(name: unknown, args: unknown): void {
  nonEmpty("name", name);
  if (args !== undefined && !isObject(args)) throw new TypeError("args must be an object");
}

/**
 * Checks the options of a call that may need input, throwing `TypeError` for a bad one.
 *
 * @param options The caller's options.
 * @returns The same options.
 */
export function checkCallOptions(options: CallOptions | undefined): CallOptions {
  const opts = checkOptions(options, ["assigns", "principal"]);
  checkCaller(opts);
  return opts;
}

/**
 * Checks whom a call is for: `principal` a string and `assigns` an object, when given.
 *
 * @param options The caller's options.
 * @returns `{ principal, assigns }` alone.
 * @throws {TypeError} Naming the bad option.
 */
export function checkCaller(
  options: { principal?: unknown; assigns?: unknown },
): { principal?: string; assigns?: Record<string, unknown> } {
  const { principal, assigns } = options;
  if (assigns !== undefined && !isObject(assigns)) {
    throw new TypeError('option "assigns" must be an object');
  }
  if (principal !== undefined && typeof principal !== "string") {
    throw new TypeError('option "principal" must be a string');
  }
  return { principal, assigns } as { principal?: string; assigns?: Record<string, unknown> };
}

/**
 * The request options the connection takes, out of a method's options.
 *
 * @param options A method's checked options.
 * @returns The signal, timeouts and progress callback alone.
 */
export function requestOptions(options: RequestOptions): ConnectionRequestOptions {
  const { signal, timeout, onProgress, maxTotalTimeout } = options;
  return { signal, timeout, onProgress, maxTotalTimeout };
}

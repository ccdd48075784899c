/**
 * Argument and output validation against a tool's JSON Schemas (draft 2020-12, with
 * `@cfworker/json-schema`: no `eval`, no network). A schema is compiled once per tool
 * definition (by identity, so once per listing), and compiling also checks what the validator
 * would only find on the first call: every `$ref` resolves inside the schema (a remote one is
 * never fetched, so it fails to compile), every `pattern` is a valid regular expression, every
 * `type` is a JSON type. The errors name the instance path, the keyword, what the schema
 * expected and what was given, in a form to hand back to a model.
 *
 * The validator package loads on first use ({@linkcode loadValidator}), as the other optional
 * packages do: a program that never validates never loads it, and one whose import map lacks
 * it gets kind `transport`, reason `dependency_missing`, when it first validates.
 *
 * @module
 */

import type { Schema, Validator } from "@cfworker/json-schema";
import { dependencyMissing, McpError } from "../protocol/errors.ts";
import { isObject } from "../protocol/json.ts";
import { pointer, schemaProblem } from "./_schema_check.ts";

/** One way the arguments (or the output) fail the schema. */
export interface SchemaIssue {
  /** Where, as a JSON pointer into the instance (`""` for the whole object). */
  path: string;
  /** The schema keyword that failed (`type`, `required`, `minimum`, …). */
  keyword: string;
  /** What the schema asks for at that keyword, when short. */
  expected?: unknown;
  /** What was given there: the value when it is a short scalar, else its JSON type. */
  got?: unknown;
  /** The validator's message. */
  message: string;
}

/** A compiled schema: the issues of an instance, `[]` when it is valid. */
export type CompiledSchema = (instance: unknown) => SchemaIssue[];

/** The keywords that only report that a sub-schema failed (the sub-schema's issue says why). */
const WRAPPERS = new Set([
  "properties",
  "items",
  "prefixItems",
  "additionalItems",
  "patternProperties",
  "unevaluatedProperties",
  "unevaluatedItems",
  "additionalProperties",
  "dependentSchemas",
  "contains",
  "$ref",
]);
/** The keywords whose `false` sub-schema forbids a property or an item. */
const FORBIDDING = new Set([
  "additionalProperties",
  "unevaluatedProperties",
  "items",
  "additionalItems",
  "unevaluatedItems",
]);
const MAX_ISSUES = 20;

type ValidatorClass = typeof Validator;
let ValidatorOf: ValidatorClass | undefined;
let loading: Promise<void> | undefined;

/**
 * Loads `@cfworker/json-schema` (once). {@linkcode compileSchemaNow} needs it loaded.
 *
 * @returns When it is loaded; kind `transport`, reason `dependency_missing` when it cannot be.
 */
export function loadValidator(): Promise<void> {
  return loading ??= import("@cfworker/json-schema").then((module) => {
    ValidatorOf = module.Validator;
  }, (error) => {
    loading = undefined;
    throw dependencyMissing('the "@cfworker/json-schema" package', "validate arguments", error);
  });
}

/** Whether the validator package is loaded (so {@linkcode compileSchemaNow} can run). */
export function validatorLoaded(): boolean {
  return ValidatorOf !== undefined;
}

/**
 * Compiles a schema, or explains why it cannot be (loading the validator first).
 *
 * @param schema The tool's `inputSchema` or `outputSchema`.
 * @returns The compiled schema; kind `transport`, reason `dependency_missing`, when the
 *   validator package does not load.
 * @throws {McpError} kind `validation`, reason `invalid_schema`, saying what is wrong.
 *
 * @example
 * ```ts
 * import { compileSchema } from "./validate.ts";
 *
 * const check = await compileSchema({ type: "object", properties: { n: { type: "integer" } } });
 * const [issue] = check({ n: "3" });
 * if (issue.path !== "/n" || issue.expected !== "integer" || issue.got !== "3") throw new Error();
 * ```
 */
export async function compileSchema(schema: unknown): Promise<CompiledSchema> {
  await loadValidator();
  return compileSchemaNow(schema);
}

/**
 * {@linkcode compileSchema} once the validator is loaded ({@linkcode loadValidator}).
 *
 * @param schema The tool's `inputSchema` or `outputSchema`.
 * @returns The compiled schema.
 * @throws {McpError} kind `validation`, reason `invalid_schema`, saying what is wrong.
 * @throws {Error} When the validator is not loaded yet.
 */
export function compileSchemaNow(schema: unknown): CompiledSchema {
  if (ValidatorOf === undefined) throw new Error("the validator is not loaded yet");
  if (typeof schema !== "boolean" && !isObject(schema)) throw unusable("it is not an object");
  const problem = typeof schema === "boolean" ? undefined : schemaProblem(schema, schema, "#");
  if (problem !== undefined) throw unusable(problem);
  let validator: Validator;
  try {
    validator = new ValidatorOf(schema as Schema | boolean, "2020-12", false);
  } catch (error) {
    throw unusable(String((error as Error).message ?? error).split("\n")[0]);
  }
  return (instance) => {
    const result = validator.validate(instance);
    if (result.valid) return [];
    return issuesOf(result.errors, instance, schema);
  };
}

function unusable(what: string): McpError {
  return new McpError(`The tool's schema cannot be used: ${what}`, {
    kind: "validation",
    reason: "invalid_schema",
  });
}

/** The schema value at a keyword location, following local `$ref`s on the way. */
function schemaAt(schema: unknown, location: string): unknown {
  let at = schema;
  for (const raw of location === "" ? [] : location.slice(1).split("/")) {
    const part = decodeURIComponent(raw).replaceAll("~1", "/").replaceAll("~0", "~");
    if (part === "$ref" && isObject(at) && typeof at.$ref === "string") {
      const ref = at.$ref;
      at = ref === "#" ? schema : ref.startsWith("#/") ? pointer(schema, ref.slice(1)) : undefined;
    } else {
      at = pointer(at, `/${raw}`);
    }
    if (at === undefined) return undefined;
  }
  return at;
}

interface OutputUnit {
  keyword: string;
  keywordLocation: string;
  instanceLocation: string;
  error: string;
}

function issuesOf(errors: OutputUnit[], instance: unknown, schema: unknown): SchemaIssue[] {
  const paths = errors.map((e) => e.instanceLocation.slice(1));
  const issues: SchemaIssue[] = [];
  for (let i = 0; i < errors.length && issues.length < MAX_ISSUES; i++) {
    const error = errors[i];
    const path = paths[i];
    let keyword = error.keyword;
    if (WRAPPERS.has(keyword) && keyword !== "additionalProperties") continue;
    if (keyword === "additionalProperties" || keyword === "unevaluatedProperties") continue;
    if (keyword === "false") {
      // A property or item the schema forbids (additionalProperties: false, …).
      const parent = errors.find((e, j) =>
        j < i && paths[j] === parentOf(path) && FORBIDDING.has(e.keyword)
      );
      keyword = parent?.keyword ?? "additionalProperties";
      issues.push({ path, keyword, message: `${describe(path)} is not allowed` });
      continue;
    }
    const issue: SchemaIssue = { path, keyword, message: error.error };
    const expected = schemaAt(schema, error.keywordLocation.slice(1));
    if (expected !== undefined && short(expected)) issue.expected = expected;
    else if (keyword === "type") {
      // Through a $ref the keyword's location is not a path into the schema.
      const named = /Expected "([^"]*)"/.exec(error.error)?.[1];
      if (named !== undefined) issue.expected = named;
    }
    if (keyword === "required") {
      const missing = /"([^"]*)"/.exec(error.error)?.[1];
      if (missing !== undefined) issue.expected = missing;
    } else {
      issue.got = summary(pointer(instance, path));
    }
    issues.push(issue);
  }
  if (issues.length === 0 && errors.length > 0) {
    issues.push({ path: "", keyword: errors[0].keyword, message: errors[0].error });
  }
  return issues;
}

function parentOf(path: string): string {
  return path.slice(0, Math.max(0, path.lastIndexOf("/")));
}

function describe(path: string): string {
  return path === "" ? "the value" : `"${path}"`;
}

function short(value: unknown): boolean {
  return JSON.stringify(value).length <= 200;
}

function summary(value: unknown): unknown {
  if (value === undefined) return undefined;
  if (typeof value === "string") return value.length <= 100 ? value : "string";
  if (value === null || typeof value === "number" || typeof value === "boolean") return value;
  return Array.isArray(value) ? "array" : "object";
}

/**
 * The error of arguments that fail the tool's `inputSchema`.
 *
 * @param name The tool.
 * @param issues What failed.
 * @returns kind `validation`, reason `invalid_arguments`, `data` the issues.
 */
export function invalidArguments(name: string, issues: SchemaIssue[]): McpError {
  const first = issues[0];
  const where = first.path === "" ? "" : ` at ${first.path}`;
  return new McpError(
    `The arguments of tool "${name}" do not match its input schema${where}: ${first.message}` +
      (issues.length > 1 ? ` (and ${issues.length - 1} more)` : ""),
    { kind: "validation", reason: "invalid_arguments", data: issues },
  );
}

/**
 * The error of a `structuredContent` that fails the tool's `outputSchema` (or is missing).
 *
 * @param name The tool.
 * @param issues What failed.
 * @returns kind `validation`, reason `invalid_output`, `data` the issues.
 */
export function invalidOutput(name: string, issues: SchemaIssue[]): McpError {
  const first = issues[0];
  return new McpError(
    `The structured result of tool "${name}" does not match its output schema: ${first.message}`,
    { kind: "validation", reason: "invalid_output", data: issues },
  );
}

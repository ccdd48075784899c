/**
 * The `elicitation` option's answer rules, for hosts without a person at hand: the first
 * rule that matches a request answers it (`cancel`, the form's defaults, or field values
 * checked against its `requestedSchema`); a request no rule answers goes to the handler's
 * own `elicitation` when there is one, else is answered `cancel` (never `decline`: no
 * person declined) with one warning naming the server and its sanitised message. Loaded
 * with the first elicitation of a client that has rules.
 *
 * @module
 */

import type { ElicitResult, HandlerContext } from "../../protocol/capabilities.ts";
import { isObject } from "../../protocol/json.ts";
import {
  checkAnswer,
  checkField,
  type FormField,
  formFields,
  readField,
  setOwn,
} from "../../protocol/elicitation_form.ts";
import type { ElicitationRule } from "../options.ts";

// Nothing the plain client loads is imported here, so bundlers keep this module and the
// form reader in a chunk of their own, outside what a plain client ships.
/** Terminal escape sequences (CSI, OSC, and the rest), in their 7- and 8-bit forms. */
const ESCAPES =
  // deno-lint-ignore no-control-regex -- matching ESC is the point
  /(\x1b\[|\x9b)[0-?]*[ -/]*[@-~]|(\x1b\]|\x9d)[^\x07\x1b\x9c]*(\x07|\x1b\\|\x9c)?|\x1b[^[\]]/g;

/**
 * Server text as one line for a warning: escape sequences removed whole, then every control,
 * format (bidi, zero-width) and unassigned character dropped, whitespace runs one space, at
 * most `max` characters. (The client's shared sanitiser stays out of this module: see above.)
 */
function line(text: string, max: number): string {
  const one = text.replace(ESCAPES, "").replace(/\s+/g, " ").replace(/\p{C}/gu, "").trim();
  return one.length > max ? `${[...one].slice(0, max - 1).join("")}…` : one;
}

/** What {@linkcode answerByRules} needs besides the rules and the request. */
export interface RulesContext {
  /** The server's name (the client's `name` option), for rules' `server` and warnings. */
  server?: string;
  /** Where the warnings go (the client's `onWarning`). */
  warn(message: string): void;
  /** Asked when no rule matches (the handler's own `elicitation`). */
  fallback?(
    params: Record<string, unknown>,
    ctx: HandlerContext,
  ): Promise<ElicitResult> | ElicitResult;
  /** The handler's context, for the fallback. */
  handlerContext?: HandlerContext;
}

/** The message of a request, as one sanitised line for a warning. */
function said(params: Record<string, unknown>): string {
  return JSON.stringify(line(typeof params.message === "string" ? params.message : "", 200));
}

function matches(
  rule: ElicitationRule,
  params: Record<string, unknown>,
  fields: FormField[] | string | undefined,
  server: string | undefined,
): boolean {
  if (rule.server !== undefined && rule.server !== server) return false;
  const message = typeof params.message === "string" ? params.message : "";
  if (typeof rule.match === "string" && !message.includes(rule.match)) return false;
  if (rule.match instanceof RegExp) {
    rule.match.lastIndex = 0;
    if (!rule.match.test(message)) return false;
  }
  const keys = Array.isArray(fields) ? new Set(fields.map((f) => f.key)) : undefined;
  if (rule.fields !== undefined && (keys === undefined || rule.fields.some((k) => !keys.has(k)))) {
    return false;
  }
  if (rule.answer === "cancel") return true;
  // Defaults and values answer forms only.
  if (fields === undefined) return false;
  if (isObject(rule.answer) && keys && Object.keys(rule.answer).some((key) => !keys.has(key))) {
    return false;
  }
  return true;
}

/** The content of an object answer, with typed text read by its field; or the problem. */
function contentOf(
  fields: FormField[],
  answer: Record<string, unknown>,
): Record<string, unknown> | string {
  const byKey = new Map(fields.map((f) => [f.key, f]));
  const content: Record<string, unknown> = {};
  for (const [key, given] of Object.entries(answer)) {
    if (given === undefined) continue;
    const field = byKey.get(key)!;
    let value: unknown = given;
    if (typeof given === "string" && field.kind !== "string" && checkField(field, given)) {
      const read = readField(field, given);
      if ("reason" in read) return `field "${key}" ${read.reason}`;
      value = read.value;
    }
    setOwn(content, key, value);
  }
  return checkAnswer(fields, content) ?? content;
}

/**
 * Answers an elicitation request by the first matching rule, else by the fallback, else
 * `cancel` with a warning. Never rejects for a rule's sake: a rule the form refuses is
 * answered `cancel`, with a warning saying why.
 *
 * @param rules The rules, first match wins.
 * @param params The `elicitation/create` params.
 * @param context The server's name, the warning sink, the fallback.
 * @returns The answer (an accepted form's missing fields are filled with their defaults
 * later, by the client).
 *
 * @example
 * ```ts
 * import { answerByRules } from "./answer_rules.ts";
 *
 * const params = {
 *   message: "Which environment?",
 *   requestedSchema: {
 *     type: "object",
 *     properties: { env: { type: "string", enum: ["staging", "prod"] }, replicas: { type: "integer" } },
 *     required: ["env"],
 *   },
 * };
 * const warnings: string[] = [];
 * const warn = (message: string) => void warnings.push(message);
 * const rules = [{ match: /environment/, answer: { env: "staging", replicas: "3" } }];
 * const answer = await answerByRules(rules, params, { warn });
 * if (answer.action !== "accept" || answer.content?.replicas !== 3) throw new Error("unexpected");
 * const none = await answerByRules([], params, { server: "deployer", warn });
 * if (none.action !== "cancel" || !warnings[0].includes("deployer")) throw new Error("unexpected");
 * ```
 */
export async function answerByRules(
  rules: readonly ElicitationRule[],
  params: Record<string, unknown>,
  context: RulesContext,
): Promise<ElicitResult> {
  const form = params.mode === undefined || params.mode === "form";
  const fields = form ? formFields(params.requestedSchema) : undefined;
  const who = context.server === undefined ? "the server" : `server ${line(context.server, 80)}`;
  const rule = rules.find((r) => matches(r, params, fields, context.server));
  if (rule === undefined) {
    if (context.fallback && context.handlerContext) {
      return await context.fallback(params, context.handlerContext);
    }
    context.warn(
      `No elicitation rule answers ${who}'s request ${said(params)}: answered cancel`,
    );
    return { action: "cancel" };
  }
  if (rule.answer === "cancel") return { action: "cancel" };
  const refuse = (why: string): ElicitResult => {
    context.warn(
      `The elicitation rule for ${who}'s request ${said(params)} cannot answer it (${
        line(why, 300)
      }): answered cancel`,
    );
    return { action: "cancel" };
  };
  if (typeof fields === "string") return refuse(fields);
  const content = rule.answer === "defaults" ? {} : contentOf(fields!, rule.answer);
  if (typeof content === "string") return refuse(content);
  if (rule.answer === "defaults") {
    const problem = checkAnswer(fields!, content);
    if (problem !== undefined) return refuse(problem);
  }
  return { action: "accept", content };
}

const RULE_KEYS = ["server", "match", "fields", "answer"];

/** What is wrong with a rule, if anything. */
function ruleProblem(rule: unknown): string | undefined {
  if (!isObject(rule)) return "must be an object";
  const unknown = Object.keys(rule).find((key) => !RULE_KEYS.includes(key));
  if (unknown !== undefined) {
    return `has no key "${unknown}" (a rule has ${RULE_KEYS.join(", ")})`;
  }
  const { server, match, fields, answer } = rule;
  if (server !== undefined && typeof server !== "string") return '"server" must be a name';
  if (match !== undefined && typeof match !== "string" && !(match instanceof RegExp)) {
    return '"match" must be text or a RegExp';
  }
  if (
    fields !== undefined && (!Array.isArray(fields) || !fields.every((f) => typeof f === "string"))
  ) {
    return '"fields" must be a list of field names';
  }
  if (answer !== "cancel" && answer !== "defaults" && !isObject(answer)) {
    return '"answer" must be "cancel", "defaults" or an object of values';
  }
  return undefined;
}

/**
 * The client's `elicitation` handler with rules: checks the rules, then
 * {@linkcode answerByRules} (the handler's own `elicitation` answers what none matches).
 *
 * @throws {TypeError} For a rule that is not an object, has an unknown key, or whose
 * `server`, `match`, `fields` or `answer` has the wrong type.
 */
export default function ruled(
  rules: unknown,
  params: Record<string, unknown>,
  ctx: HandlerContext,
  client: { name?: string; warn(message: string): void },
  given?: { elicitation?: RulesContext["fallback"] },
): Promise<ElicitResult> {
  if (!Array.isArray(rules)) {
    throw new TypeError('createClient: option "elicitation" must be a list of answer rules');
  }
  rules.forEach((rule, i) => {
    const problem = ruleProblem(rule);
    if (problem !== undefined) {
      throw new TypeError(`createClient: option "elicitation" rule ${i}: ${problem}`);
    }
  });
  return answerByRules(rules, params, {
    server: client.name,
    warn: client.warn,
    fallback: given?.elicitation,
    handlerContext: ctx,
  });
}

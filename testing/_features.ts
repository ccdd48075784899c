/**
 * Private: the mock server's features, the same in both eras: the four lists (paged), tool
 * calls, prompts, resource reads (templates included) and completions.
 *
 * @module
 */

import type { JsonObject } from "../protocol/jsonrpc.ts";
import { type Core, failure, objectOr, type Outcome, thrown } from "./_core.ts";
import { type RunEnd, runHandler, type RunSetup } from "./_context.ts";
import type { Completer, MockContext, MockTemplate } from "./types.ts";

const text = (value: string): JsonObject => ({ type: "text", text: value });

function strip<T extends object>(item: T, drop: readonly string[]): JsonObject {
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(item)) {
    if (!drop.includes(key) && value !== undefined) out[key] = value;
  }
  return out;
}

/** The items of a list method, as the wire shows them. */
function listed(core: Core, method: string, version: string): [string, JsonObject[]] {
  const def = core.def;
  switch (method) {
    case "tools/list":
      return [
        "tools",
        (def.tools ?? []).map((tool) => {
          const out = strip(tool, ["handler", "task"]);
          out.inputSchema ??= { type: "object" };
          if (tool.task && version === "2025-11-25") out.execution = { taskSupport: tool.task };
          return out;
        }),
      ];
    case "prompts/list":
      return ["prompts", (def.prompts ?? []).map((p) => strip(p, ["handler", "complete"]))];
    case "resources/list":
      return [
        "resources",
        (def.resources ?? []).map((r) => ({
          name: r.uri,
          mimeType: "text/plain",
          ...strip(r, ["read", "text"]),
        })),
      ];
    default:
      return [
        "resourceTemplates",
        (def.templates ?? []).map((t) => ({
          name: t.uriTemplate,
          mimeType: "text/plain",
          ...strip(t, ["read", "complete"]),
        })),
      ];
  }
}

/** One page of a list method. */
export function listPage(core: Core, method: string, params: JsonObject, version: string): Outcome {
  const [key, items] = listed(core, method, version);
  let offset = 0;
  if (params.cursor !== undefined) {
    const match = typeof params.cursor === "string" ? /^page-(\d+)$/.exec(params.cursor) : null;
    if (!match) return failure(-32602, "Invalid cursor");
    offset = Number(match[1]);
  }
  const size = core.def.pageSize ?? 50;
  const result: JsonObject = { [key]: items.slice(offset, offset + size) };
  if (offset + size < items.length) result.nextCursor = `page-${offset + size}`;
  return { result };
}

function ended(end: RunEnd, shape: (value: unknown) => JsonObject): Outcome {
  if ("error" in end) return { error: end.error };
  if ("inputRequired" in end) return { result: end.inputRequired };
  if ("thrown" in end) return thrown(end.thrown);
  return { result: shape(end.value) };
}

/** What a tool's handler returned, as a `CallToolResult`. */
export function toolResult(value: unknown): JsonObject {
  if (value === undefined || value === null) return { content: [] };
  if (typeof value === "string") return { content: [text(value)] };
  const object = objectOr(value);
  if (object && Array.isArray(object.content)) return { ...object };
  return { content: [text(JSON.stringify(value))], structuredContent: value };
}

/** Runs a tool (a thrown error without a numeric `code` is an `isError` result). */
export async function callTool(core: Core, setup: RunSetup, signal: AbortSignal): Promise<Outcome> {
  const params = setup.request.params ?? {};
  const tool = core.def.tools?.find((t) => t.name === params.name);
  if (!tool) return failure(-32602, `Unknown tool: ${String(params.name)}`);
  const args = objectOr(params.arguments) ?? {};
  const end = await runHandler(setup, signal, (ctx) => tool.handler?.(args, ctx));
  if ("thrown" in end && typeof (end.thrown as { code?: unknown })?.code !== "number") {
    const message = end.thrown instanceof Error ? end.thrown.message : String(end.thrown);
    return { result: { content: [text(message)], isError: true } };
  }
  return ended(end, toolResult);
}

function promptResult(value: unknown, description?: string): JsonObject {
  const result: JsonObject = description === undefined ? {} : { description };
  if (value === undefined || value === null) return { ...result, messages: [] };
  if (typeof value === "string") {
    return { ...result, messages: [{ role: "user", content: text(value) }] };
  }
  if (Array.isArray(value)) return { ...result, messages: value };
  return { ...result, ...objectOr(value) };
}

/** Gets a prompt (unknown ones and missing required arguments are -32602). */
export async function getPrompt(
  core: Core,
  setup: RunSetup,
  signal: AbortSignal,
): Promise<Outcome> {
  const params = setup.request.params ?? {};
  const prompt = core.def.prompts?.find((p) => p.name === params.name);
  if (!prompt) return failure(-32602, `Unknown prompt: ${String(params.name)}`);
  const args = (objectOr(params.arguments) ?? {}) as Record<string, string>;
  for (const arg of prompt.arguments ?? []) {
    if (arg.required && args[arg.name] === undefined) {
      return failure(-32602, `Missing required argument: ${arg.name}`);
    }
  }
  const end = await runHandler(setup, signal, (ctx) => prompt.handler?.(args, ctx));
  return ended(end, (value) => promptResult(value, prompt.description));
}

function matchTemplate(template: MockTemplate, uri: string): Record<string, string> | undefined {
  const names: string[] = [];
  const pattern = template.uriTemplate.split(/(\{[^}]+\})/).map((part) => {
    if (!part.startsWith("{")) return part.replace(/[.*+?^$()|[\]\\]/g, "\\$&");
    names.push(part.slice(1, -1));
    return "([^/]+)";
  }).join("");
  const match = new RegExp(`^${pattern}$`).exec(uri);
  if (!match) return undefined;
  return Object.fromEntries(names.map((name, i) => [name, decodeURIComponent(match[i + 1])]));
}

function contentsOf(value: unknown, uri: string, mimeType: string): JsonObject {
  if (typeof value === "string") return { contents: [{ uri, mimeType, text: value }] };
  if (Array.isArray(value)) return { contents: value };
  return { ...objectOr(value) };
}

/** Reads a resource or a URI a template matches (not found: modern -32602, legacy -32002). */
export async function readResource(
  core: Core,
  setup: RunSetup,
  signal: AbortSignal,
): Promise<Outcome> {
  const uri = String(setup.request.params?.uri);
  const resource = core.def.resources?.find((r) => r.uri === uri);
  let read: ((ctx: MockContext) => unknown) | undefined;
  let mimeType = "text/plain";
  if (resource) {
    mimeType = resource.mimeType ?? mimeType;
    read = (ctx) => resource.read ? resource.read(uri, ctx) : resource.text ?? "";
  } else {
    for (const template of core.def.templates ?? []) {
      const variables = matchTemplate(template, uri);
      if (!variables || !template.read) continue;
      mimeType = template.mimeType ?? mimeType;
      read = (ctx) => template.read!(uri, variables, ctx);
      break;
    }
  }
  if (!read) {
    return failure(setup.era === "modern" ? -32602 : -32002, "Resource not found", { uri });
  }
  const end = await runHandler(setup, signal, read);
  return ended(end, (value) => contentsOf(value, uri, mimeType));
}

function candidates(completer: Completer, value: string, context: Record<string, string>) {
  if (typeof completer === "function") return completer(value, context);
  return completer.filter((option) => option.startsWith(value));
}

/** Completes an argument of a prompt or a template. */
export function complete(core: Core, params: JsonObject): Outcome {
  const ref = objectOr(params.ref) ?? {};
  const argument = objectOr(params.argument) ?? {};
  const name = String(argument.name ?? "");
  const value = String(argument.value ?? "");
  const context = (objectOr(objectOr(params.context)?.arguments) ?? {}) as Record<string, string>;
  let completer: Completer | undefined;
  if (ref.type === "ref/prompt") {
    completer = core.def.prompts?.find((p) => p.name === ref.name)?.complete?.[name];
  } else if (ref.type === "ref/resource") {
    completer = core.def.templates?.find((t) => t.uriTemplate === ref.uri)?.complete?.[name];
  }
  let values: string[];
  try {
    if (completer) values = candidates(completer, value, context);
    else if (core.def.complete) values = core.def.complete(ref, { name, value }, context);
    else return failure(-32602, "Unknown reference");
  } catch (error) {
    return thrown(error);
  }
  const list = values.slice(0, 100);
  return {
    result: { completion: { values: list, total: values.length, hasMore: values.length > 100 } },
  };
}

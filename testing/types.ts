/**
 * What a mock server is made of: its tools, prompts, resources, templates and completions,
 * and the context a handler gets (input from the client, progress, logs).
 *
 * @module
 */

import type { JsonObject, JsonRpcId } from "../protocol/jsonrpc.ts";
import type { Implementation, LogLevel } from "../protocol/meta.ts";
import type { Era } from "../protocol/versions.ts";

/** One input request, as a modern `inputRequests` entry or a legacy server request holds it. */
export interface InputRequest {
  /** `elicitation/create`, `sampling/createMessage` or `roots/list`. */
  method: string;
  /** Its params. */
  params?: JsonObject;
}

/** What a handler may do while it runs. */
export interface MockContext {
  /** The era this request arrived in. */
  era: Era;
  /** Its protocol version (the modern `_meta` one, or the legacy session's). */
  version: string;
  /** The request's id, method and params (as the client sent them). */
  request: { id: JsonRpcId; method: string; params: JsonObject };
  /** The capabilities the client declared (per request when modern, per session when legacy). */
  clientCapabilities: JsonObject;
  /** The client's self-reported identity, when it gave one. */
  clientInfo?: Implementation;
  /** Aborted when the client cancels the request, or the connection ends. */
  signal: AbortSignal;
  /** Sends `notifications/progress` when the request asked for progress. */
  progress(progress: number, total?: number, message?: string): void;
  /** Sends `notifications/message` when the client asked for logs at `level` or below. */
  log(level: LogLevel, data: unknown, logger?: string): void;
  /**
   * Asks the client for input: a modern server answers `input_required` (and runs the handler
   * again on the retry, where this call resolves with the answer); a legacy server sends the
   * client a request. Handlers must ask in the same order on every run.
   */
  input(request: InputRequest): Promise<JsonObject>;
  /** `input({ method: "elicitation/create", params })`. */
  elicit(params: JsonObject): Promise<JsonObject>;
  /** `input({ method: "sampling/createMessage", params })`. */
  sample(params: JsonObject): Promise<JsonObject>;
  /** `input({ method: "roots/list" })`, resolving with the roots. */
  roots(): Promise<JsonObject[]>;
}

/** Runs a tool: returns a text, a `CallToolResult` (with `content`), or any JSON (structured). */
export type ToolHandler = (args: JsonObject, ctx: MockContext) => unknown;

/** A tool of the mock server. */
export interface MockTool {
  /** Its name. */
  name: string;
  /** Its title. */
  title?: string;
  /** Its description. */
  description?: string;
  /** Its input schema (default `{ type: "object" }`). */
  inputSchema?: JsonObject;
  /** Its output schema. */
  outputSchema?: JsonObject;
  /** Its annotations. */
  annotations?: JsonObject;
  /**
   * Its `_meta`, listed as given (e.g. `{ "anthropic/alwaysLoad": true }` or
   * `{ "anthropic/maxResultSizeChars": 2000 }`).
   */
  _meta?: JsonObject;
  /** Runs the tool (default: an empty result). A thrown error with a numeric `code` is a JSON-RPC error; any other is an `isError` result. */
  handler?: ToolHandler;
  /** Runs as a task when the client asks (`"optional"`) or always (`"required"`). */
  task?: "optional" | "required";
}

/** Completes one argument: the candidates (filtered by the typed prefix when an array). */
export type Completer =
  | readonly string[]
  | ((value: string, context: Record<string, string>) => string[]);

/** A prompt argument. */
export interface MockPromptArgument {
  /** Its name. */
  name: string;
  /** Its description. */
  description?: string;
  /** Whether it must be given. */
  required?: boolean;
}

/** A prompt of the mock server. */
export interface MockPrompt {
  /** Its name. */
  name: string;
  /** Its title. */
  title?: string;
  /** Its description. */
  description?: string;
  /** Its arguments. */
  arguments?: MockPromptArgument[];
  /** Makes its messages: a text (one user message), the messages, or a `GetPromptResult`. */
  handler?: (args: Record<string, string>, ctx: MockContext) => unknown;
  /** Completions of its arguments, by argument name. */
  complete?: Record<string, Completer>;
}

/** A resource of the mock server. */
export interface MockResource {
  /** Its URI. */
  uri: string;
  /** Its name (default: the URI). */
  name?: string;
  /** Its description. */
  description?: string;
  /** Its MIME type (default `text/plain`). */
  mimeType?: string;
  /** Its text, when it has no `read`. */
  text?: string;
  /** Reads it: a text, or the `contents`. */
  read?: (uri: string, ctx: MockContext) => unknown;
}

/** A resource template of the mock server (`{name}` placeholders match one path segment). */
export interface MockTemplate {
  /** The RFC 6570 template, e.g. `item://{id}`. */
  uriTemplate: string;
  /** Its name (default: the template). */
  name?: string;
  /** Its description. */
  description?: string;
  /** Its MIME type (default `text/plain`). */
  mimeType?: string;
  /** Reads a matching URI: a text, or the `contents`. */
  read?: (uri: string, variables: Record<string, string>, ctx: MockContext) => unknown;
  /** Completions of its variables, by name. */
  complete?: Record<string, Completer>;
}

/** The freshness a modern server gives a cacheable result. */
export interface CacheHints {
  /** How long the result stays fresh, in milliseconds. */
  ttlMs: number;
  /** Whether it may be shared across authorization contexts. */
  cacheScope: "public" | "private";
}

/** A raw method handler: returns the result object (a thrown error becomes a JSON-RPC error). */
export type MethodHandler = (params: JsonObject, ctx: MockContext) => unknown;

/** Everything {@linkcode mockServer} serves. All members are optional. */
export interface MockDefinition {
  /** `serverInfo` (default `{ name: "mock-server", version: "1.0.0" }`). */
  serverInfo?: Implementation;
  /** The instructions the server reports. */
  instructions?: string;
  /** The eras it speaks (default `"both"`). */
  eras?: "both" | "modern" | "legacy";
  /** The versions it supports, newest first (default: every version of its eras). */
  versions?: string[];
  /** Its tools. */
  tools?: MockTool[];
  /** Its prompts. */
  prompts?: MockPrompt[];
  /** Its resources. */
  resources?: MockResource[];
  /** Its resource templates. */
  templates?: MockTemplate[];
  /** Completions for references the prompts and templates do not complete themselves. */
  complete?: (
    ref: JsonObject,
    argument: { name: string; value: string },
    context: Record<string, string>,
  ) => string[];
  /** Items per list page (default 50). */
  pageSize?: number;
  /** Modern `ttlMs`/`cacheScope` (default `{ ttlMs: 60000, cacheScope: "public" }`), or per method. */
  cache?: CacheHints | ((method: string, params: JsonObject) => CacheHints);
  /** Capabilities merged over the ones the definition implies. */
  capabilities?: JsonObject;
  /** Raw handlers by method, used before the built-in ones (for servers that misbehave). */
  methods?: Record<string, MethodHandler>;
  /** Task timing: `pollIntervalMs` (default 50) and `ttlMs` (default 60000). */
  tasks?: { pollIntervalMs?: number; ttlMs?: number };
}

/** One message the mock server received. */
export interface MockRequest {
  /** The JSON-RPC id (absent for notifications). */
  id?: JsonRpcId;
  /** The method. */
  method: string;
  /** The params (`{}` when none). */
  params: JsonObject;
  /** The era it was handled in (absent for notifications). */
  era?: Era;
  /** How it came: `"in_process"`, `"http"` or `"stdio"`. */
  via: string;
  /** HTTP only: the request's headers, names in lower case. */
  headers?: Record<string, string>;
}

/**
 * The client's handler (how it answers sampling, elicitation and roots requests) and the
 * `ClientCapabilities` it advertises, built only from the callbacks it implements.
 *
 * @module
 */

import { type Era, era as eraOf } from "./versions.ts";

/**
 * The client request an input request belongs to (modern `input_required`).
 *
 * @example
 * ```ts
 * import type { OriginatingRequest } from "./capabilities.ts";
 *
 * const request: OriginatingRequest = { method: "tools/call", params: { name: "deploy", arguments: {} } };
 * if (request.params.name !== "deploy") throw new Error("unexpected");
 * ```
 */
export interface OriginatingRequest {
  /** `tools/call`, `prompts/get` or `resources/read`. */
  method: string;
  /** The params the caller's request was sent with (without `_meta`). */
  params: Record<string, unknown>;
}

/**
 * What a handler callback learns about the input request it answers.
 *
 * In the modern era every input request belongs to one call (`callTool`, `getPrompt`,
 * `readResource`), so `request`, `assigns` and `principal` are those of that call. A legacy
 * server sends its requests on its own, not tied to a call the client can name, so there
 * they are absent.
 *
 * @example An elicitation handler that names the tool asking, and gives up when cancelled
 * ```ts
 * import type { ClientHandler } from "./capabilities.ts";
 *
 * const handler: ClientHandler = {
 *   elicitation: async (params, ctx) => {
 *     const tool = ctx.request?.method === "tools/call" ? String(ctx.request.params.name) : "the server";
 *     const asked = `${tool} asks (for ${ctx.principal ?? "you"}): ${String(params.message)}`;
 *     await new Promise((resolve) => setTimeout(resolve, 1));
 *     if (ctx.signal.aborted || asked === "") return { action: "cancel" };
 *     return { action: "accept", content: {} };
 *   },
 * };
 * const answer = await handler.elicitation!({ message: "Proceed?", requestedSchema: {} }, {
 *   signal: new AbortController().signal,
 *   era: "modern",
 *   protocolVersion: "2026-07-28",
 *   request: { method: "tools/call", params: { name: "deploy" } },
 *   principal: "alice",
 * });
 * if (answer.action !== "accept") throw new Error("unexpected");
 * ```
 */
export interface HandlerContext {
  /**
   * Aborted when the answer is no longer wanted: legacy, when the server cancels its request
   * or the connection ends; modern, when the caller's signal aborts.
   */
  signal: AbortSignal;
  /** The era of the connection. */
  era: Era;
  /** The protocol version in use, e.g. `"2026-07-28"`. */
  protocolVersion: string;
  /** The call the input is for (modern only). */
  request?: OriginatingRequest;
  /**
   * The caller's `assigns`, when the input belongs to a call that carried them (legacy: only
   * for a task's input, named by its related-task `_meta`).
   */
  assigns?: Record<string, unknown>;
  /**
   * The caller's `principal` (whom the call is made for), when the call carried one (modern
   * only: a legacy server's request names no call).
   */
  principal?: string;
}

/** A root the client exposes to the server (legacy `roots/list`, modern input requests). */
export interface Root {
  /** A `file://` URI. */
  uri: string;
  /** A name to show. */
  name?: string;
  /** Extra metadata. */
  _meta?: Record<string, unknown>;
}

/** The answer to an elicitation request. */
export interface ElicitResult {
  /** What the user did. */
  action: "accept" | "decline" | "cancel";
  /** The submitted form content, for an accepted form. */
  content?: Record<string, unknown>;
}

/**
 * How the client answers the server's requests for input. Every callback is optional, and
 * only the implemented ones are advertised as capabilities. The same callbacks serve both
 * eras: legacy server requests (`sampling/createMessage`, `elicitation/create`, `roots/list`)
 * and the modern `input_required` rounds of `callTool`, `getPrompt` and `readResource`.
 *
 * A callback that throws or rejects never breaks the connection: a legacy server gets a
 * JSON-RPC error answer, and a modern call fails (an `McpError` thrown by the callback is
 * passed on as it is).
 *
 * @example A handler that answers every kind of input
 * ```ts
 * import type { ClientHandler } from "./capabilities.ts";
 *
 * const handler: ClientHandler = {
 *   sampling: (params) => ({
 *     role: "assistant",
 *     content: { type: "text", text: `(${(params.messages as unknown[]).length} messages)` },
 *     model: "stub-model",
 *   }),
 *   // Accepting with no content: the schema's defaults fill the form (SEP-1034).
 *   elicitation: () => ({ action: "accept", content: {} }),
 *   listRoots: () => [{ uri: "file:///home/me/project", name: "project" }],
 * };
 * if (typeof handler.listRoots !== "function") throw new Error("unexpected");
 * ```
 */
export interface ClientHandler {
  /** Answers `sampling/createMessage` params with a `CreateMessageResult` (`role`, `content`, `model`). */
  sampling?: (
    params: Record<string, unknown>,
    ctx: HandlerContext,
  ) => Promise<Record<string, unknown>> | Record<string, unknown>;
  /**
   * Answers `elicitation/create` params, form mode (`requestedSchema`) or URL mode (`url`).
   * An accepted form's missing fields are filled with the schema's `default`s.
   */
  elicitation?: (
    params: Record<string, unknown>,
    ctx: HandlerContext,
  ) => Promise<ElicitResult> | ElicitResult;
  /** Lists the client's roots (`file://` URIs). */
  listRoots?: (ctx: HandlerContext) => Promise<Root[]> | Root[];
}

/** Options for {@linkcode clientCapabilities}. */
export interface ClientCapabilitiesOptions {
  /** The era to build for (default: the era of `version`, else `"modern"`). */
  era?: Era;
  /**
   * The exact version, when known; `"2025-06-18"` gets the form-only `elicitation: {}`, and
   * `"2025-03-26"` no elicitation and a plain `sampling: {}`.
   */
  version?: string;
  /** Also declare `sampling.tools` (default `false`). */
  samplingTools?: boolean;
  /** Also declare `sampling.context`, allowing `includeContext` other than `"none"`. */
  samplingContext?: boolean;
  /** Declare `roots.listChanged` in the legacy era (default `false`). */
  rootsListChanged?: boolean;
  /** Declare URL-mode elicitation next to form mode (default `true`; not in `2025-06-18`). */
  elicitationUrl?: boolean;
}

/**
 * The `ClientCapabilities` to advertise for `handler`. Only implemented callbacks
 * contribute, so `undefined` or an empty handler gives `{}`.
 *
 * - `sampling` → `{ sampling: {} }`, plus `tools: {}` / `context: {}` when the options ask.
 * - `elicitation` → `{ elicitation: { form: {}, url: {} } }` (`{ form: {} }` with
 *   `elicitationUrl: false`), or `{ elicitation: {} }` (form only) for version `2025-06-18`.
 * - `listRoots` → `{ roots: {} }`; in the legacy era `{ roots: { listChanged: true } }`
 *   when `rootsListChanged` is set (the modern era has no `roots.listChanged`).
 *
 * @param handler The client's handler, or `undefined`.
 * @param opts The era, version and optional sub-capabilities.
 * @returns A fresh capabilities object.
 *
 * @example
 * ```ts
 * import { clientCapabilities } from "./capabilities.ts";
 *
 * if (Object.keys(clientCapabilities(undefined)).length !== 0) throw new Error("expected {}");
 * const caps = clientCapabilities({ listRoots: () => Promise.resolve([]) }, {
 *   era: "legacy",
 *   rootsListChanged: true,
 * });
 * if (JSON.stringify(caps) !== '{"roots":{"listChanged":true}}') throw new Error("unexpected");
 * ```
 */
export function clientCapabilities(
  handler: ClientHandler | undefined,
  opts: ClientCapabilitiesOptions = {},
): Record<string, unknown> {
  const caps: Record<string, unknown> = {};
  if (typeof handler !== "object" || handler === null) return caps;
  const versionEra = opts.version === undefined ? "unknown" : eraOf(opts.version);
  const mode: Era = opts.era ?? (versionEra === "unknown" ? "modern" : versionEra);
  // 2025-03-26 knows sampling without its sub-capabilities, and no elicitation.
  const oldest = opts.version === "2025-03-26";
  if (typeof handler.sampling === "function") {
    const sampling: Record<string, unknown> = {};
    if (opts.samplingTools && !oldest) sampling.tools = {};
    if (opts.samplingContext && !oldest) sampling.context = {};
    caps.sampling = sampling;
  }
  if (typeof handler.elicitation === "function" && !oldest) {
    caps.elicitation = opts.version === "2025-06-18"
      ? {}
      : opts.elicitationUrl === false
      ? { form: {} }
      : { form: {}, url: {} };
  }
  if (typeof handler.listRoots === "function") {
    caps.roots = mode === "legacy" && opts.rootsListChanged ? { listChanged: true } : {};
  }
  return caps;
}

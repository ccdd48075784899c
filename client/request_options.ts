/**
 * The options of the client's request methods, and the progress they report.
 *
 * @module
 */

import type { CacheStore } from "../cache/store.ts";
import type { Task } from "../protocol/tasks.ts";

/** The params of a `notifications/progress` notification. */
export interface Progress {
  /** The progress so far; rises with each notification. */
  progress: number;
  /** The total, when known. */
  total?: number;
  /** A message for people. */
  message?: string;
  /** Other members the server sent (such as `progressToken`). */
  [key: string]: unknown;
}

/** Options every request takes. */
export interface RequestOptions {
  /** Cancels the request (it fails with kind `cancelled`). */
  signal?: AbortSignal;
  /** Milliseconds without an answer (or progress) before it fails with kind `timeout`. */
  timeout?: number;
  /** Receives this request's progress notifications; each one restarts the timeout. */
  onProgress?: (progress: Progress) => void;
  /**
   * The ceiling on the whole request, in milliseconds, when progress keeps restarting the
   * timeout: past it the request fails with kind `timeout` whatever the server reports.
   * Default: 10 × the request's `timeout` (10 minutes with the default `requestTimeout` of
   * 60 s); `Infinity` lets progress extend it for ever.
   */
  maxTotalTimeout?: number;
}

/**
 * Options of the calls that may need input from the host: `callTool`, `getPrompt` and
 * `readResource`. `assigns` and `principal` reach the handler's context for the input
 * requests of this call (modern `input_required` rounds).
 *
 * @example Pass the user a call is made for to the handler
 * ```ts
 * import type { CallOptions } from "./types.ts";
 *
 * const options: CallOptions = { principal: "alice", assigns: { ticket: 42 }, timeout: 5_000 };
 * if (options.principal !== "alice") throw new Error("unexpected");
 * ```
 */
export interface CallOptions extends RequestOptions {
  /** Data of the caller's own, handed to the handler as `ctx.assigns`. */
  assigns?: Record<string, unknown>;
  /** Whom the call is made for, handed to the handler as `ctx.principal`. */
  principal?: string;
}

/** How `callTool` treats a call the server runs as a task. */
export type TaskMode = "return" | "await";

/**
 * Options of `callTool`: the call options, and how a server task is treated. `task: "return"`
 * resolves with the {@linkcode Task} as soon as the server made one; `"await"` polls it to its
 * end, `timeout` bounding the whole wait (the task is cancelled when it passes or `signal`
 * aborts).
 */
export interface ToolCallOptions extends CallOptions {
  /** Run the call as a task where the server can: return the task, or await its result. */
  task?: TaskMode;
  /** The task's time to live to ask a legacy server for, in ms. */
  taskTtl?: number;
  /** Called with each new status of an awaited task. */
  onStatus?: (task: Task) => void;
}

/**
 * The options that make `callTool` shape its result for a model: it then resolves with a
 * `ShapedResult` (`shapeResult` of the tool result: one text within `maxChars`, structured
 * content once, media as references, `isError` kept). A server task is awaited to its
 * result first; with `task: "return"` the call is a `TypeError` (shape what `awaitTask`
 * returns instead). Errors (kind `timeout`, `server`, …) are thrown as for a plain call.
 *
 * @example
 * ```ts
 * import type { ShapeCallOptions, ToolCallOptions } from "./types.ts";
 *
 * const options: ToolCallOptions & ShapeCallOptions = { shape: "llm", maxChars: 2_000 };
 * if (options.shape !== "llm") throw new Error("unexpected");
 * ```
 */
export interface ShapeCallOptions {
  /** Shape the result for a model. */
  shape: "llm";
  /**
   * The most characters of the shaped text (default: the tool's
   * `_meta["anthropic/maxResultSizeChars"]`, else the client's `shape.maxChars`, 8 000).
   */
  maxChars?: number;
  /**
   * Keep a result over budget whole behind a handle (`readResult`) instead of cutting it:
   * `true` (the client's store), `false`, or a store (default: the client's `shape.spill`).
   */
  spill?: boolean | CacheStore;
}

/**
 * Options of `readResult`: which part of a spilled result to read. `grep` and `jsonPath`
 * make another text (the matching lines, or a JSON subtree) that `offset` and `length` then
 * page through.
 *
 * @example
 * ```ts
 * import type { ReadResultOptions } from "./types.ts";
 *
 * const page: ReadResultOptions = { offset: 8_000, length: 4_000 };
 * if (page.offset !== 8_000) throw new Error("unexpected");
 * ```
 */
export interface ReadResultOptions {
  /** Where the page starts (default 0). */
  offset?: number;
  /** The most characters of the page (default 8 000). */
  length?: number;
  /** Only the lines holding this text (any case), each with two lines around it. */
  grep?: string;
  /**
   * A subtree of the structured content (else of the JSON text): `$`, `.key`, `["key"]`,
   * `[3]`, `[0:20]` — e.g. `$.rows[0:20]`.
   */
  jsonPath?: string;
  /**
   * The base64 data of a media block (image, audio, blob) instead of the text: its number in
   * the result, as its line in the text names it (`"media":0`).
   */
  media?: number;
  /** Whom the read is for: the principal the call was made for. */
  principal?: string;
}

/** Options of `awaitTask`. */
export interface AwaitTaskOptions {
  /** The longest wait in ms (default the client's `requestTimeout`); then the task is cancelled. */
  timeout?: number;
  /** Stops the wait and cancels the task. */
  signal?: AbortSignal;
  /**
   * Data of the caller's own, handed to the handler answering the task's input requests
   * (modern). A legacy server's requests for a task get the `assigns` and `principal` of the
   * call that started it on this client, whoever awaits it (none for a task it did not start).
   */
  assigns?: Record<string, unknown>;
  /** Called with each new status (and status message) of the task. */
  onStatus?: (task: Task) => void;
}

/**
 * Who a listing is for, on a governed client (see the `tools` option): the `tools` filter's
 * functions and the hooks see them. A plain client ignores them.
 *
 * @example
 * ```ts
 * import type { ToolViewOptions } from "./types.ts";
 *
 * const view: ToolViewOptions = { principal: "alice", assigns: { team: "ops" } };
 * if (view.principal !== "alice") throw new Error("unexpected");
 * ```
 */
export interface ToolViewOptions {
  /** Whom the listing is for. */
  principal?: string;
  /** Data of the caller's own. */
  assigns?: Record<string, unknown>;
}

/** Options of the one-page list methods. */
export interface ListOptions extends RequestOptions, ToolViewOptions {
  /** The previous page's `nextCursor`. */
  cursor?: string;
}

/**
 * Options of the `listAll*` methods: `timeout` applies to each page and is also the longest
 * the caller waits for a refresh it shares; `signal` stops the caller waiting (the refresh
 * itself goes on and fills the cache).
 */
export interface ListAllOptions extends RequestOptions, ToolViewOptions {
  /** Ignore a fresh cached listing and ask the server. */
  refresh?: boolean;
  /**
   * When the refresh fails with a transport error (the server is unreachable), return the
   * last listing instead, stale, with a warning (default `false`: the error).
   */
  staleIfError?: boolean;
}

/** Options of `readResource`. */
export interface ReadResourceOptions extends CallOptions {
  /**
   * How the read uses the cache: `"use"` a fresh cached result (default), `"refresh"` ask
   * the server and cache the answer, `"bypass"` ask the server and leave the cache alone.
   */
  cache?: "use" | "refresh" | "bypass";
}

/** Options of `complete`. */
export interface CompleteOptions extends RequestOptions {
  /** Already-resolved arguments: `{ arguments: { name: value } }`. */
  context?: { arguments?: Record<string, string> };
}

/**
 * The options of `createClient`: the transport, the protocol choice, the handler, timeouts,
 * and how the client reconnects and retries.
 *
 * @module
 */

import type { ClientHandler } from "../protocol/capabilities.ts";
import type { Implementation } from "../protocol/meta.ts";
import type { Transport } from "../transports/transport.ts";
import type { CacheStore } from "../cache/store.ts";
import type { MeterLike, TracerLike } from "../tracing/types.ts";
import type { ShapeDefaults } from "../governance/shape.ts";
import type { ToolFilter } from "../governance/filter.ts";
import type { Hooks } from "../governance/hooks.ts";
import type { PolicyOptions } from "../governance/options.ts";

/**
 * How the client reconnects after the transport fails: a stdio process that exits, or an
 * HTTP server that a request cannot reach (refused, reset, DNS). Meanwhile the client is
 * `reconnecting` and requests wait; with `reconnect: false` it closes instead.
 */
export interface ReconnectOptions {
  /**
   * Attempts before giving up into `closed` (default 5). They start over once a connection
   * stayed up for ten seconds, not at each handshake.
   */
  attempts?: number;
  /** The first delay in milliseconds (default 200). */
  initialDelay?: number;
  /** The longest delay in milliseconds (default 10 000). */
  maxDelay?: number;
  /** The growth factor per attempt (default 2). */
  factor?: number;
  /** The random share of each delay, 0 to 1 (default 0.2). */
  jitter?: number;
}

/**
 * How requests answered with a retryable HTTP status are retried (Streamable HTTP only).
 *
 * A request rejected with HTTP 408, 429 or 5xx is sent again, up to `attempts` more times,
 * after the exponential backoff or the server's `Retry-After`, whichever is longer. Which
 * requests are retried depends on whether sending them twice is harmless:
 *
 * - Reads and other idempotent requests (`ping`, `server/discover`, the list methods,
 *   `resources/read`, `prompts/get`, `completion/complete`, `logging/setLevel`,
 *   `resources/subscribe`, `resources/unsubscribe`) are retried on 408, 429 and every 5xx.
 * - `tools/call` and every other request (a tool may have side effects, and a 408 or 5xx
 *   does not say whether it ran) only on 429, and on 503 with a `Retry-After`: answers by
 *   which the server says it did not process the request.
 *
 * A retry never waits past the request's timeout, nor for a `Retry-After` longer than
 * `maxRetryAfter`: the request then fails at once with the status error (kind `transport`,
 * reason `http_status`, `data.retryAfterMs`). `maxRetryAfter` also bounds every other wait
 * a server chooses, where there is no single request to fail: the reconnect loop's
 * `Retry-After` and an event stream's `retry:` or `Retry-After` are capped to it (and a
 * stream waits at least 100 ms, or its `reconnectDelay` when shorter). With `retry: false`
 * the cap is its default, one minute.
 *
 * @example Retry more patiently
 * ```ts
 * import type { RetryOptions } from "./types.ts";
 *
 * const retry: RetryOptions = { attempts: 4, initialDelay: 500, maxRetryAfter: 120_000 };
 * if (retry.attempts !== 4) throw new Error("unexpected");
 * ```
 */
export interface RetryOptions {
  /** Retries after the first attempt (default 2). */
  attempts?: number;
  /** The first delay in milliseconds (default 250). */
  initialDelay?: number;
  /** The longest backoff delay in milliseconds (default 5 000). */
  maxDelay?: number;
  /** The growth factor per retry (default 2). */
  factor?: number;
  /** The random share of each delay, 0 to 1 (default 0.2). */
  jitter?: number;
  /**
   * The longest `Retry-After` worth waiting for, in milliseconds (default 60 000); the cap
   * of every server-chosen wait (see above).
   */
  maxRetryAfter?: number;
}

/**
 * Which protocol to speak: `auto` probes `server/discover` and picks the era; `modern` and
 * `legacy` force an era; a version string such as `"2025-06-18"` pins that version.
 */
export type ProtocolChoice = "auto" | "modern" | "legacy" | (string & Record<never, never>);

/**
 * The options of `createClient`.
 *
 * @example A legacy-only client that gives up after three reconnect attempts
 * ```ts
 * import type { ClientOptions } from "./types.ts";
 * import { inProcess } from "../transports/in_process.ts";
 *
 * const options: ClientOptions = {
 *   transport: inProcess({ connect: () => ({ receive() {} }) }),
 *   protocol: "legacy",
 *   requestTimeout: 10_000,
 *   reconnect: { attempts: 3, initialDelay: 100 },
 *   clientInfo: { name: "my-app", version: "1.0.0" },
 * };
 * if (options.protocol !== "legacy") throw new Error("unexpected");
 * ```
 */
export interface ClientOptions {
  /** How to reach the server, e.g. `stdio(…)`, `streamableHttp(…)` or `inProcess(…)`. */
  transport: Transport;
  /**
   * The protocol choice (default `"auto"`). A pinned version the client does not speak
   * (such as `"2024-11-05"`) is a `TypeError`.
   */
  protocol?: ProtocolChoice;
  /** The versions the client offers, preferred first (default: all it speaks). */
  versions?: string[];
  /** The client's identity (default `{ name: "conduit-mcp", version: … }`). */
  clientInfo?: Implementation;
  /**
   * Answers the server's input requests (legacy server requests, modern `input_required`
   * rounds); only implemented callbacks become capabilities. Without one the client
   * declares `{}`.
   */
  handler?: ClientHandler;
  /** The default timeout of every request, in milliseconds (default 60 000). */
  requestTimeout?: number;
  /** How long the `server/discover` probe waits on stdio before assuming legacy (default 5 000). */
  probeTimeout?: number;
  /** Backoff settings for reconnecting, or `false` to never reconnect. */
  reconnect?: ReconnectOptions | false;
  /** Declare `sampling.tools` (default `false`). */
  samplingTools?: boolean;
  /** Declare `sampling.context` (default `false`). */
  samplingContext?: boolean;
  /**
   * Declare `roots.listChanged` in the legacy era when the handler implements `listRoots`
   * (default `true`, so `notifyRootsChanged()` sends what was declared); `false` declares
   * plain `roots: {}`, and `notifyRootsChanged()` then fails.
   */
  rootsListChanged?: boolean;
  /** Declare URL-mode elicitation next to form mode, when there is an elicitation handler (default `true`). */
  elicitationUrl?: boolean;
  /**
   * The most `input_required` results one `callTool`/`getPrompt`/`readResource` answers
   * before failing with kind `protocol`, reason `too_many_rounds` (default 8).
   */
  maxRounds?: number;
  /**
   * Receives diagnostics (lines a server wrote to stdout that are not JSON-RPC, each failed
   * attempt of the first connect, dropped tools, policy rules that match everything); never
   * secrets. Default: `console.warn` (stderr), prefixed `@conduit/mcp:`; pass
   * `() => {}` to drop them.
   */
  onWarning?: (message: string) => void;
  /** Retries of requests answered with HTTP 408, 429 or 5xx, or `false` for none. */
  retry?: RetryOptions | false;
  /**
   * Let `instructionsForLlm()` return the server's instructions (default `false`: they are
   * written by the server, so they stay out of a model's context unless asked for).
   */
  includeInstructions?: boolean;
  /** Trust the server: `instructionsForLlm()` leaves out the line naming it (default `false`). */
  trusted?: boolean;
  /**
   * Where listings and `resources/read` results are cached (default: a `memoryStore()` of
   * this client's own). Pass one store to many clients, or `denoKvStore(kv)` /
   * `redisStore(command)`, to share them between processes and hosts.
   */
  cache?: CacheStore;
  /**
   * How long a legacy server's listing is fresh, in milliseconds, for a list the server
   * declares no `listChanged` for (default 0: asked again each time). With `listChanged` it
   * stays fresh until the server's `list_changed`, a reconnect or the session's end.
   */
  legacyTtlMs?: number;
  /**
   * An OpenTelemetry `Tracer` (or an object of its shape): each request becomes a `CLIENT`
   * span, its trace context goes to the server in `_meta` (and as W3C headers over HTTP).
   * `@opentelemetry/api` is loaded only when a tracer is given. See the README's Tracing.
   */
  tracer?: TracerLike;
  /** An OpenTelemetry `Meter`: request durations and errors by kind (with a `tracer` only). */
  meter?: MeterLike;
  /** Record tool call arguments and results on spans (default `false`; redacted all the same). */
  recordArguments?: boolean;
  /**
   * Defaults of the calls made with `shape: "llm"`: `maxChars`, the budget of the shaped
   * text (default 8 000, at least 200), and `spill`: keep a result over budget whole behind
   * a handle (`readResult`) bound to the caller's identity — `true` (a memory store), a
   * store, or `{ store, ttlMs, maxBytes }`. Shaping stays per call: a plain `callTool`
   * returns the raw result, so its type follows its own options.
   */
  shape?: ShapeDefaults;
  /**
   * The server's name for governance (policy rules' `servers`, grants, pins, `ctx.server`)
   * (default: the client's own identity of what it connected to, a digest of the URL or of
   * the command line and working directory; never the server's `serverInfo.name`).
   */
  name?: string;
  /**
   * The account profile (`"work"`, `"personal"`) the OAuth credentials belong to: tokens,
   * connections and private cached results are kept per profile, so two profiles on one
   * server never see each other's. `connect(url, { profile })` and hub entries set it on
   * their `auth.oauth`; with a transport of your own it must match its OAuth `profile`.
   */
  profile?: string;
  /**
   * Governance: which tools a caller sees and may call, as `{ allow, deny }` lists of names
   * and `*` globs (deny wins) or a function `(tool, ctx) => boolean` that sees the caller's
   * `principal` and `assigns`. A hidden tool is left out of `listTools`, `listAllTools`,
   * `cachedTools` and `tool`, and calling it fails with kind `not_found`, reason
   * `hidden_tool`, without a request. With any of `tools`, `validate`, `policy`, `hooks` or
   * `pin`, every call runs the governance pipeline (see `createGovernance`); without them,
   * calls are sent as given.
   */
  tools?: ToolFilter;
  /**
   * Governance: check each call's arguments against the tool's `inputSchema` (JSON Schema
   * 2020-12, no remote `$ref`; compiled once per listing) before anything is sent (kind
   * `validation`, reason `invalid_arguments`, `data` the issues: `path`, `keyword`,
   * `expected`, `got`, `message`), and a result's `structuredContent` against its
   * `outputSchema` (reason `invalid_output`). A tool whose schema cannot be compiled is left
   * out of listings with a warning. Default `false`.
   */
  validate?: boolean;
  /**
   * Governance: rules (first match wins) that `allow`, `deny` or `ask` for tool calls by name,
   * annotations, server and principal; `ask` goes to the `approver` with the validated
   * arguments (its `"always"` is remembered per principal and tool in the `cache` store).
   * `scope: ["resources", "prompts"]` runs the rules before `readResource`/`getPrompt` too.
   * Denials are kind `denied` (reasons `policy_denied`, `approver_denied`,
   * `approval_required`), with the rule in `data`.
   */
  policy?: PolicyOptions;
  /**
   * Governance: `onToolsListed`, `beforeCall`, `afterCall`, `onPromptGet`, `onResourceRead`,
   * `onToolChanged`; one set or a list of sets. A hook that throws fails the call with kind
   * `hook`.
   */
  hooks?: Hooks | Hooks[];
  /**
   * Governance: pin tool definitions (`true`: in the `cache` store, or a store of their own).
   * A tool whose name, title, description, schemas or annotations changed since it was first
   * listed or called is held: hidden, and refused on call (kind `denied`, reason
   * `tool_changed`, the diff in `data.change`) until an `onToolChanged` hook or the
   * approver accepts it. Each change is reported once with a readable diff (`onWarning`). A
   * pin store that fails fails the listing or call: pins that cannot be read are not skipped.
   */
  pin?: boolean | CacheStore;
  /**
   * Answer rules for the server's elicitation requests, for hosts without a person at hand
   * (first match wins, checked before `handler.elicitation`). A rule's `answer` is checked
   * against the form's `requestedSchema`; a request no rule answers goes to
   * `handler.elicitation` when there is one, else is answered `cancel` (never `decline`: no
   * person declined) with a warning naming the server and its message. See
   * {@linkcode ElicitationRule}.
   */
  elicitation?: ElicitationRule[];
}

/**
 * One answer rule of the `elicitation` option: which requests it answers and how.
 *
 * @example
 * ```ts
 * import type { ElicitationRule } from "./options.ts";
 *
 * const rules: ElicitationRule[] = [
 *   { match: /deploy/i, fields: ["environment"], answer: { environment: "staging" } },
 *   { match: "confirm", answer: "defaults" },
 *   { answer: "cancel" },
 * ];
 * if (rules.length !== 3) throw new Error("unexpected");
 * ```
 */
export interface ElicitationRule {
  /** Only for this server: the client's `name` option (unset: any server). */
  server?: string;
  /** Only for requests whose message holds this text, or that this RegExp matches. */
  match?: string | RegExp;
  /** Only for forms that ask for every one of these fields. */
  fields?: string[];
  /**
   * The answer: `"cancel"`; `"defaults"` (accept a form with its schema's defaults, when
   * they fill every required field); or a form's field values (a rule whose values name a
   * field the form lacks does not match; a string for a number, boolean or choice field is
   * read as a person's typed answer, e.g. `"42"`, `"yes"`, `"a,b"`). An answer the schema
   * refuses is answered `cancel`, with a warning saying why.
   */
  answer: Record<string, unknown> | "cancel" | "defaults";
}

/**
 * The shapes `classifyProbe` reads and returns: a probe's outcome and the verdict.
 * Re-exported from `negotiation.ts`.
 *
 * @module
 */

import type { DiscoverResult } from "./discover.ts";
import type { McpError } from "./errors.ts";

/**
 * What a `server/discover` probe came back with.
 *
 * Over stdio: `result`, `error` (a JSON-RPC error), `timeout` (no reply in time) or
 * `closed` (the server process exited during the probe). Over HTTP: `http` (a response,
 * with its status, `Content-Type` and body), `transport_error` (the fetch failed) or
 * `timeout`.
 */
export type ProbeOutcome =
  | {
    /** A JSON-RPC result arrived. */
    kind: "result";
    /** The `result` member. */
    result: unknown;
  }
  | {
    /** A JSON-RPC error arrived. */
    kind: "error";
    /** The `error` member. */
    error: { code: number; message?: string; data?: unknown };
  }
  | {
    /** No reply in time. */
    kind: "timeout";
  }
  | {
    /** The server process exited (or the link closed) during the probe. */
    kind: "closed";
    /** Why, if known. */
    reason?: unknown;
  }
  | {
    /** An HTTP response arrived. */
    kind: "http";
    /** The HTTP status. */
    status: number;
    /** The `Content-Type` header, if any. */
    contentType?: string | null;
    /** The body: raw bytes, text, or an already decoded JSON-RPC message. */
    body?: Uint8Array | string | Record<string, unknown> | null;
  }
  | {
    /** The HTTP request failed before a response (network error). */
    kind: "transport_error";
    /** The underlying error. */
    error: unknown;
  };

/**
 * What to do after a probe.
 *
 * - `modern`: use `version`; `result` is the validated, normalised `DiscoverResult`.
 * - `modern_retry`: the server is modern but wants another version: send again with `version`.
 * - `legacy`: run the `initialize` handshake.
 * - `reconnect_legacy`: the process exited; start it again and run `initialize`.
 * - `authorize`: HTTP 401/403; authorize (or step up scopes), then probe again.
 * - `retry`: a transient failure; probe again later, never downgrade. `reason` is
 *   `"timeout"`, `"closed"`, `{ status }` for HTTP 408/429/5xx, or the transport error.
 * - `error`: give up with `error` (a modern server that cannot be used, or an unexpected answer).
 */
export type Verdict =
  | {
    /** The server speaks the modern era. */
    verdict: "modern";
    /** The version to use. */
    version: string;
    /** The server's validated `DiscoverResult`. */
    result: DiscoverResult;
  }
  | {
    /** The server is modern and named a version both sides speak. */
    verdict: "modern_retry";
    /** The version to probe again with. */
    version: string;
  }
  | {
    /** The server is legacy. */
    verdict: "legacy";
  }
  | {
    /** The server process exited: restart it and use the legacy era. */
    verdict: "reconnect_legacy";
  }
  | {
    /** The server wants authorization. */
    verdict: "authorize";
    /** The HTTP status. */
    status: 401 | 403;
  }
  | {
    /** A transient failure. */
    verdict: "retry";
    /** What failed. */
    reason: unknown;
  }
  | {
    /** The probe failed for good. */
    verdict: "error";
    /** Why. */
    error: McpError;
  };

/** Options for `classifyProbe`. */
export interface ClassifyProbeOptions {
  /** The client's versions in preference order (default `clientVersions()`); only modern ones count. */
  versions?: readonly string[];
}

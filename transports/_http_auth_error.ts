/**
 * Private: the `auth` error of a 401 or 403 answer, with the challenge through the one
 * allow-list of `challenge_summary.ts` (never a token or the full header). Loaded with the
 * link (`_http_link.ts`), not with the transport's options.
 *
 * @module
 */

import { McpError } from "../protocol/errors.ts";
import { describeChallenge, safeChallenge } from "./challenge_summary.ts";

/** The `McpError` for a 401 or 403: kind `auth`, with the status and a safe challenge. */
export function authError(response: Response, what: string): McpError {
  const summary = safeChallenge(response.headers.get("www-authenticate"));
  const status = response.status;
  return new McpError(
    `The server refused ${what} with HTTP ${status} (${
      status === 401 ? "unauthorized" : "forbidden"
    }; ${describeChallenge(summary)})`,
    {
      kind: "auth",
      reason: status === 401 ? "unauthorized" : "forbidden",
      data: { status, challenge: summary },
    },
  );
}

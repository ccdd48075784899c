/**
 * Where a user's login stands, as `status().auth` reports it: `"none"` (no tokens yet),
 * `"ok"` (tokens in hand), `"pending"` (a login is waiting for the user: the URL to open,
 * or the device code to enter), `"needs_reauth"` (the refresh token was refused, revoked or
 * expired: requests fail at once with reason `needs_reauth` until `login()` or `setAuth`).
 *
 * @module
 */

import { McpError } from "../protocol/errors.ts";

/** The state of a login. */
export type AuthState = "none" | "ok" | "pending" | "needs_reauth";

/** What the user must act on while a login is pending. */
export interface LoginPrompt {
  /** The page to open: the authorization URL, or the device flow's verification page. */
  url: string;
  /** The code to enter there (device flow). */
  userCode?: string;
  /** When the code expires (ms since the epoch; device flow). */
  expiresAt?: number;
}

/** A login's state, with what to act on while it is pending. */
export interface AuthStatus {
  /** The state. */
  state: AuthState;
  /** While `pending`: where the user logs in. */
  login?: LoginPrompt;
}

/** Keeps one middleware's login state. */
export interface AuthTracker {
  /** The state now (a copy). */
  status(): AuthStatus;
  /** Moves to `state` (with the prompt while pending). */
  set(state: AuthState, login?: LoginPrompt): void;
}

/**
 * A login state keeper, starting at `"none"`.
 *
 * @returns The tracker.
 *
 * @example
 * ```ts
 * import { authTracker } from "./auth_status.ts";
 *
 * const auth = authTracker();
 * auth.set("pending", { url: "https://as.example.com/device", userCode: "WDJB-MJHT" });
 * if (auth.status().login?.userCode !== "WDJB-MJHT") throw new Error();
 * auth.set("ok");
 * if (auth.status().login !== undefined) throw new Error();
 * ```
 */
export function authTracker(): AuthTracker {
  let current: AuthStatus = { state: "none" };
  return {
    status: () =>
      current.login ? { state: current.state, login: { ...current.login } } : {
        state: current.state,
      },
    set(state, login) {
      current = state === "pending" && login !== undefined ? { state, login } : { state };
    },
  };
}

/**
 * The error of a request made while a login is needed again.
 *
 * @returns kind `auth`, reason `needs_reauth`.
 *
 * @example
 * ```ts
 * import { needsReauthError } from "./auth_status.ts";
 *
 * if (needsReauthError().reason !== "needs_reauth") throw new Error();
 * ```
 */
export function needsReauthError(): McpError {
  return new McpError(
    "The login has expired or was revoked (the refresh token was refused): log in again " +
      "(login() or setAuth)",
    { kind: "auth", reason: "needs_reauth" },
  );
}

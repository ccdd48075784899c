/**
 * Private: the types the OAuth engine (`_engine.ts`) and its recoveries (`_recovery.ts`)
 * share, below both, so the recovery code needs nothing back from the engine.
 *
 * @module
 */
import type { ResourceChallenge } from "./challenge.ts";
import type { Discovery } from "./discovery.ts";
import type { DpopSigner } from "./dpop.ts";
import type { ClientCredentialsOptions, OAuthOptions } from "./options.ts";
import type { TokenSet, TokenStore } from "./store.ts";
import type { Waiter } from "./_interactive.ts";
import type { FetchLike } from "./_util.ts";
import type { AuthTracker } from "./auth_status.ts";

/** The grant that gets brand-new tokens. */
export type Grant =
  | { kind: "authorization_code"; options: OAuthOptions }
  | { kind: "client_credentials"; options: ClientCredentialsOptions };

/** Per-endpoint state. */
export interface Session {
  serverUrl: URL;
  discovery?: Discovery;
  tokens?: TokenSet;
  scopes?: string[];
  flight?: Promise<Recovery>;
  /** The scopes the flight in progress steps up to (`undefined`: it is no step-up). */
  flightScopes?: string[];
  dpop?: DpopSigner;
  reload: boolean;
  /** The last `resource_metadata` a challenge named (used when a later one names none). */
  resourceMetadataUrl?: string;
  /** Step-up authorizations per operation since its last success. */
  stepUps: Map<string, number>;
}

/** How a recovery got its tokens. */
export interface Recovery {
  tokens: TokenSet;
  how: "current" | "stored" | "refreshed" | "authorized";
}

/** What a recovery must do. */
export interface Need {
  /** The tokens that were refused (if any). */
  failed?: TokenSet;
  /** The challenge of the refusal. */
  challenge: ResourceChallenge;
  /** Step-up: authorize again with the union of scopes (no refresh, no stored tokens). */
  stepUp?: boolean;
  /** Skip stored tokens and refresh: authorize again. */
  reauthorize?: boolean;
  /**
   * Proactive (the tokens are about to expire): refresh if possible, using the discovery
   * already made, but never start a user's login; the stale tokens come back otherwise.
   */
  refreshOnly?: boolean;
}

/** What a recovery needs from its engine (one per middleware instance). */
export interface RecoveryContext {
  /** How brand-new tokens are obtained. */
  grant: Grant;
  /** Where tokens live. */
  store: TokenStore;
  /** Whom the tokens are for. */
  principal: string;
  /** The clock. */
  now: () => number;
  /** How long one recovery (an authorization included) may take, in ms. */
  timeout: number;
  /** The configured scopes. */
  configured?: string[];
  /** Authorizations waiting for their response, by `state`. */
  waiters: Map<string, Waiter>;
  /** Whether tokens can still be sent. */
  fresh: (tokens: TokenSet | undefined) => boolean;
  /** The `fetch` for metadata and token requests. */
  http: () => FetchLike | undefined;
  /** The issuer the configured client credentials are bound to (the first one used). */
  boundIssuer?: string;
  /** The account profile, when one is named. */
  profile?: string;
  /** Where the login stands (`status().auth`). */
  auth: AuthTracker;
  /** Set by `login()`: the next recovery skips stored tokens and refreshes. */
  forceLogin: boolean;
}

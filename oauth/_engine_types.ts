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
import type { TokenSet } from "./store.ts";

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

/**
 * Private: a live link with its session, what a handshake settled, and everything
 * negotiation needs: the types `negotiate.ts`, `_handshake.ts` and the connection core
 * share, below all three.
 *
 * @module
 */

import type { JsonObject } from "../../protocol/jsonrpc.ts";
import type { Implementation } from "../../protocol/meta.ts";
import type { Era } from "../../protocol/versions.ts";
import type { TransportKind, TransportLink } from "../../transports/transport.ts";
import type { ProtocolChoice } from "../types.ts";
import type { Session } from "./session.ts";

/** A live link with its session. */
export interface LinkHandle {
  /** The link. */
  link: TransportLink;
  /** Its session. */
  session: Session;
}

/** What a handshake settled. */
export interface Negotiated {
  /** The era. */
  era: Era;
  /** The version. */
  version: string;
  /** The server's identity, when it reported one. */
  serverInfo?: Implementation;
  /** The server's capabilities. */
  capabilities: JsonObject;
  /** The server's instructions, raw. */
  instructions?: string;
}

/** Everything negotiation needs. */
export interface NegotiateContext {
  /** The transport kind (HTTP probes through `link.probe`). */
  kind: TransportKind;
  /** The first link. */
  handle: LinkHandle;
  /** Closes the current link and opens a fresh one (for `reconnect_legacy`). */
  reopen(): Promise<LinkHandle>;
  /** The protocol choice. */
  protocol: ProtocolChoice;
  /** The client's versions, preferred first. */
  versions: readonly string[];
  /** The modern version a previous connection settled on: never downgrade from it. */
  pinnedModern?: string;
  /** The era of the previous connection (a legacy reconnect skips the probe). */
  previousEra?: Era;
  /** The capabilities to declare for an era and version. */
  capabilities(era: Era, version: string): JsonObject;
  /** The client's identity. */
  clientInfo: Implementation;
  /** How long a probe waits. */
  probeTimeout: number;
  /** How long `initialize` waits. */
  requestTimeout: number;
}

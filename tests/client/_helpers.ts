// Shared set-up for the client tests: a fixture server behind the in-process transport.
import { createClient } from "../../client/client.ts";
import type { ClientOptions, McpClient } from "../../client/types.ts";
import { isMcpError, type McpError } from "../../protocol/errors.ts";
import type { JsonObject, JsonRpcMessage } from "../../protocol/jsonrpc.ts";
import { inProcess } from "../../transports/in_process.ts";
import type { Transport, TransportKind, TransportLink } from "../../transports/transport.ts";
import { AssertionError } from "../_harness.ts";
import { createFixtureServer, type FixtureKnobs, type FixtureServer } from "../fixtures/server.ts";

/** Reconnect settings that keep tests fast and deterministic. */
export const FAST = { attempts: 3, initialDelay: 1, maxDelay: 5, jitter: 0 } as const;

/** A client on a fresh fixture. */
export function fixtureClient(
  knobs: FixtureKnobs = {},
  options: Partial<ClientOptions> = {},
): { server: FixtureServer; client: McpClient; warnings: string[] } {
  const server = createFixtureServer(knobs);
  const warnings: string[] = [];
  const client = createClient({
    transport: inProcess(server),
    reconnect: FAST,
    onWarning: (message) => warnings.push(message),
    ...options,
  });
  return { server, client, warnings };
}

/** Waits until `check` holds (polling every few milliseconds). */
export async function waitFor(check: () => boolean, what: string, timeout = 1_000): Promise<void> {
  const end = Date.now() + timeout;
  while (!check()) {
    if (Date.now() > end) throw new AssertionError(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}

/** Awaits a rejection and returns it as an McpError (failing otherwise). */
export async function mcpError(promise: Promise<unknown>): Promise<McpError> {
  try {
    await promise;
  } catch (error) {
    if (isMcpError(error)) return error;
    throw new AssertionError(`expected an McpError, got ${error}`);
  }
  throw new AssertionError("expected the promise to reject");
}

/** The requests the fixture received for `method`. */
export function requests(server: FixtureServer, method: string): JsonObject[] {
  return server.received.filter((m) =>
    "method" in m && m.method === method && "id" in m
  ) as unknown as JsonObject[];
}

/** The `params._meta` of a received message. */
export function metaOf(message: JsonObject | JsonRpcMessage): JsonObject {
  const params = (message as JsonObject).params as JsonObject | undefined;
  return (params?._meta ?? {}) as JsonObject;
}

/** A transport wrapper: another kind, counted opens, and hooks on open and send. */
export function wrapTransport(
  inner: Transport,
  hooks: {
    kind?: TransportKind;
    beforeOpen?: (count: number) => void;
    onSend?: (message: JsonRpcMessage, signal?: AbortSignal) => void;
  } = {},
): Transport & { opens: number[] } {
  const opens: number[] = [];
  return {
    kind: hooks.kind ?? inner.kind,
    opens,
    async open(sink) {
      opens.push(Date.now());
      hooks.beforeOpen?.(opens.length);
      const link = await inner.open(sink);
      const wrapped: TransportLink = {
        send(message, options) {
          hooks.onSend?.(message, options?.signal);
          return link.send(message, options);
        },
        setProtocol: (protocol) => link.setProtocol(protocol),
        close: () => link.close(),
      };
      return wrapped;
    },
  };
}

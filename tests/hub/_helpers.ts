// Shared set-up for the hub tests: mock servers in-process, and a transport that can be
// broken and mended.
import { McpError } from "../../protocol/errors.ts";
import type { Transport } from "../../transports/transport.ts";
import { type MockServer, mockServer } from "../../testing/mod.ts";
import type { MockDefinition } from "../../testing/types.ts";

/** A mock server with tools named `names` (each answers with `<server>:<tool>`). */
export function toolServer(
  server: string,
  names: string[],
  extra: MockDefinition = {},
): MockServer {
  return mockServer({
    serverInfo: { name: server, version: "1.0.0" },
    tools: names.map((name) => ({
      name,
      description: `The ${name} tool of ${server}`,
      handler: (_args, ctx) => {
        ctx.progress(1, 2, "half");
        return `${server}:${name}`;
      },
    })),
    ...extra,
  });
}

/** A transport that fails to open (as a command that is not there) while `broken` is set. */
export function breakable(inner: Transport): Transport & { broken: boolean; opens: number } {
  const wrapper = {
    kind: inner.kind,
    broken: true,
    opens: 0,
    open(sink: Parameters<Transport["open"]>[0]) {
      wrapper.opens++;
      if (wrapper.broken) {
        return Promise.reject(
          new McpError('Cannot start "missing-server": command not found', {
            kind: "transport",
            reason: "command_not_found",
          }),
        );
      }
      return inner.open(sink);
    },
  };
  return wrapper as Transport & { broken: boolean; opens: number };
}

/** Fast restarts for tests. */
export const QUICK = { initialDelay: 5, maxDelay: 20, jitter: 0 } as const;

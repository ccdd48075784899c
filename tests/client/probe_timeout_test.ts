// The era probe waits as long as the transport says an interactive login may take, and a
// subscription without a request timeout waits for its acknowledgment instead of failing.
import { createClient } from "../../client/client.ts";
import { inProcess } from "../../transports/in_process.ts";
import { streamableHttp } from "../../transports/streamable_http.ts";
import type { Transport } from "../../transports/transport.ts";
import { assertEquals, test } from "../_harness.ts";
import { createFixtureServer } from "../fixtures/server.ts";
import { fixtureClient } from "./_helpers.ts";

/** The fixture, with `server/discover` answered only after `delay` ms. */
function slowDiscover(delay: number): Transport {
  const inner = inProcess(createFixtureServer({ mode: "dual" }));
  return {
    kind: inner.kind,
    async open(sink) {
      const link = await inner.open(sink);
      return {
        ...link,
        send(message, options) {
          if ("method" in message && message.method === "server/discover") {
            return new Promise((resolve) => setTimeout(resolve, delay))
              .then(() => link.send(message, options));
          }
          return link.send(message, options);
        },
      };
    },
  };
}

test("a probe slower than probeTimeout reads as legacy when no login can be running", async () => {
  await using client = createClient({ transport: slowDiscover(150), probeTimeout: 50 });
  await client.ready(2_000);
  assertEquals(client.era(), "legacy");
});

test("the probe waits for the transport's authTimeout (an interactive login in progress)", async () => {
  const transport = { ...slowDiscover(150), authTimeout: 5_000 };
  await using client = createClient({ transport, probeTimeout: 50 });
  await client.ready(2_000);
  assertEquals(client.era(), "modern");
});

test("streamableHttp reports an authTimeout only for the interactive OAuth form", () => {
  const url = "http://127.0.0.1:1/mcp";
  assertEquals(streamableHttp(url).authTimeout, undefined);
  assertEquals(streamableHttp(url, { auth: { bearer: "t" } }).authTimeout, undefined);
  const oauth = streamableHttp(url, {
    auth: {
      oauth: {
        redirectUri: "http://127.0.0.1:9/callback",
        onAuthorizationUrl: () => {},
        authorizationTimeout: 1234,
      },
    },
  });
  assertEquals(oauth.authTimeout, 1234);
});

test("modern subscribe with requestTimeout Infinity waits for the acknowledgment", async () => {
  const { client } = fixtureClient({ mode: "dual" }, { requestTimeout: Infinity });
  await using _ = client;
  await client.ready();
  await client.subscribe("test://resource1");
  assertEquals(client.status().state, "ready");
});

// close() right after a cancelled call over Streamable HTTP: the cancellation still reaches
// the server (the link lets notifications in flight finish, within a short grace).
import { connectClient } from "../../client/client.ts";
import { isMcpError } from "../../protocol/errors.ts";
import { streamableHttp } from "../../transports/streamable_http.ts";
import { assert, assertEquals, test } from "../_harness.ts";
import { startHttpFixture } from "../fixtures/http_server.ts";

test("http client: a call cancelled just before close() still sends notifications/cancelled", async () => {
  await using fixture = await startHttpFixture({
    http: { response: "sse" },
    core: { mode: "legacy-only" },
  });
  const client = await connectClient({ transport: streamableHttp(fixture.url), reconnect: false });
  const controller = new AbortController();
  let started!: () => void;
  const progressed = new Promise<void>((resolve) => started = resolve);
  const call = client.callTool("slow", { ms: 30_000, steps: 100 }, {
    signal: controller.signal,
    onProgress: () => started(),
  }).catch((error) => error);
  await progressed;
  controller.abort();
  const error = await call;
  assert(isMcpError(error) && error.kind === "cancelled", String(error));
  await client.close(); // at once: no round trip in between
  const cancelled = fixture.requests.filter((r) =>
    (r.body as { method?: string } | undefined)?.method === "notifications/cancelled"
  );
  assertEquals(cancelled.length, 1, "the server received the cancellation");
});

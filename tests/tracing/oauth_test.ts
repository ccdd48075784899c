// OAuth token fetches of a traced client are spans: under the connect attempt or the
// request that needed them, a refresh ahead of expiry as its own name; and no client
// secret or token the authorization server handed out is in any span.
import { createClient } from "../../client/client.ts";
import { streamableHttp } from "../../transports/streamable_http.ts";
import { startHttpFixture } from "../fixtures/http_server.ts";
import { startOAuthFixture } from "../fixtures/oauth_server.ts";
import { assert, assertEquals, test } from "../_harness.ts";
import { FAST } from "../client/_helpers.ts";
import { memoryTracer, parentOf, spanNamed, spanText } from "./_otel.ts";

const SECRET = `cs_TRACE_${crypto.randomUUID()}`;

test("tracing (oauth): token fetches and refreshes are spans, with no secret in any", async () => {
  await using upstream = await startHttpFixture();
  await using as = await startOAuthFixture(
    { clients: { app: SECRET }, dcr: false },
    { upstream: upstream.url },
  );
  const otel = memoryTracer();
  await otel.within("app", async () => {
    await using client = createClient({
      transport: streamableHttp(as.url, {
        auth: { clientCredentials: { clientId: "app", clientSecret: SECRET } },
      }),
      reconnect: FAST,
      tracer: otel.tracer,
    });
    await client.ready(10_000);
    // Refused tokens: the call that met the 401 fetches new ones.
    as.revokeAccessTokens();
    await client.callTool("echo", { message: "one" });
    // Tokens that expire at once: the next request refreshes them ahead of time.
    as.knobs.ttl = 1;
    as.revokeAccessTokens();
    await client.callTool("add", { a: 1, b: 2 });
    await client.callTool("echo", { message: "two" });
  });
  const spans = otel.spans();
  const tokens = spans.filter((s) => s.name === "mcp.client.oauth.token");
  assert(tokens.length >= 3, `token spans: ${tokens.length}`);
  for (const span of tokens) assertEquals(span.attributes["conduit.oauth.outcome"], "authorized");
  const connect = spanNamed(spans, "mcp.client.connect");
  assertEquals(parentOf(tokens[0]), connect.spanContext().spanId, "the first under the connect");
  const one = spans.find((s) => s.name === "tools/call echo")!;
  assert(
    tokens.some((span) => parentOf(span) === one.spanContext().spanId),
    "a fetch under the request that met the 401",
  );
  const refresh = spans.filter((s) => s.name === "mcp.client.oauth.refresh");
  assert(refresh.length >= 1, "a refresh ahead of expiry");
  assertEquals(
    new Set(spans.map((s) => s.spanContext().traceId)).size,
    1,
    "every span is in the caller's trace",
  );
  const text = spanText(spans);
  assert(!text.includes(SECRET), "a span holds the client secret");
  for (const secret of as.secrets()) assert(!text.includes(secret), "a span holds a token");
  await otel.shutdown();
});

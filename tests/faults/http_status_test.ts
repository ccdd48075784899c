// The fault suite over Streamable HTTP, statuses: 5xx storms with and without Retry-After
// (bounded retries, tools/call never retried unless safe) and cross-origin redirects (refused,
// the other origin never reached, so never handed the token), in both eras.
import { assert, assertEquals, test } from "../_harness.ts";
import { mcpError } from "../client/_helpers.ts";
import { redirect, startFaultServer, status } from "../fixtures/fault_http_server.ts";
import { call, echo, ERAS, faulty, method, posts, RETRY, when } from "./_http.ts";

for (const [era, mode] of ERAS) {
  const name = (what: string) => `faults http [${era}]: ${what}`;

  test(
    name("a 5xx storm without Retry-After: lists retried with a bound, calls never"),
    async () => {
      await using f = await faulty(mode);
      f.server.inject(when(method("tools/list"), () => status(502)), 2);
      assertEquals((await f.client.listTools()).tools.length, 7, "a short storm is ridden out");
      assertEquals(posts(f.server, "tools/list").length, 3);
      f.server.inject(when(method("tools/list"), () => status(503)), 100);
      const lists = await mcpError(f.client.listTools());
      assertEquals([lists.kind, lists.reason], ["transport", "http_status"]);
      assertEquals((lists.data as { status: number }).status, 503);
      assertEquals(posts(f.server, "tools/list").length, 3 + 1 + RETRY.attempts);
      f.server.clear();
      f.server.inject(when(call(), () => status(500)), 100);
      const calls = await mcpError(f.client.callTool("echo", { message: "x" }));
      assertEquals((calls.data as { status: number }).status, 500);
      assertEquals(posts(f.server, "tools/call").length, 1, "a tools/call is never retried on 500");
      f.server.clear();
      assertEquals(await echo(f.client), "ok");
    },
  );

  test(name("a 503 storm with Retry-After: calls too are retried, with a bound"), async () => {
    await using f = await faulty(mode);
    f.server.inject(when(call(), () => status(503, "0")), 2);
    assertEquals(await echo(f.client, "after the storm"), "after the storm");
    assertEquals(posts(f.server, "tools/call").length, 3);
    f.server.inject(when(call(), () => status(503, "0")), 100);
    const error = await mcpError(f.client.callTool("echo", { message: "x" }));
    assertEquals([error.kind, error.reason], ["transport", "http_status"]);
    assertEquals(error.data, { status: 503, retryAfterMs: 0 });
    assertEquals(posts(f.server, "tools/call").length, 3 + 1 + RETRY.attempts);
    f.server.clear();
    f.server.inject(when(call(), () => status(429, "3600")), 1);
    const long = await mcpError(f.client.callTool("echo", { message: "x" }, { timeout: 2_000 }));
    assertEquals((long.data as { status: number }).status, 429, "an hour's wait is not waited");
    f.server.clear();
    assertEquals(await echo(f.client), "ok");
  });

  test(
    name("a cross-origin redirect is refused; the other origin never sees the token"),
    async () => {
      await using other = await startFaultServer({ core: { mode } });
      await using f = await faulty(mode, { auth: { bearer: "secret-token-1234" } });
      f.server.inject(when(call(), () => redirect(other.url.href, 307)));
      const error = await mcpError(f.client.callTool("echo", { message: "x" }));
      assertEquals([error.kind, error.reason], ["transport", "redirect_refused"]);
      assert(!error.message.includes("secret-token-1234"), error.message);
      f.server.inject(when(method("tools/list"), () => redirect(other.url.href, 308)), 100);
      assertEquals((await mcpError(f.client.listTools())).reason, "redirect_refused");
      f.server.clear();
      assertEquals(await echo(f.client), "ok");
      f.server.inject(
        (r) => redirect(new URL("/elsewhere", other.url).href, r.method === "DELETE" ? 307 : 302),
        100,
      );
      await f.client.close();
      assertEquals(other.requests, [], "the other origin got no request at all");
      const deletes = f.server.requests.filter((r) => r.method === "DELETE").length;
      assertEquals(deletes, mode === "legacy-only" ? 1 : 0, "the session's DELETE was redirected");
      const seen = f.server.requests.map((r) => r.headers.authorization);
      assert(seen.every((h) => h === "Bearer secret-token-1234"), "the token went to its origin");
    },
  );
}

// The fault suite over Streamable HTTP, bodies: wrong content types, malformed, empty and
// non-message JSON, broken error bodies, oversized bodies and events, in both eras.
import { assertEquals, assertStringIncludes, test } from "../_harness.ts";
import { mcpError } from "../client/_helpers.ts";
import { event, raw, sse } from "../fixtures/fault_http_server.ts";
import { call, echo, ERAS, faulty, when } from "./_http.ts";

for (const [era, mode] of ERAS) {
  const name = (what: string) => `faults http [${era}]: ${what}`;

  const wrongTypes: [string, string | null, string][] = [
    ["text/html", "text/html", "<html><body>Welcome</body></html>"],
    ["text/plain carrying JSON", "text/plain", ""],
    ["no content type", null, ""],
  ];
  for (const [label, type, body] of wrongTypes) {
    test(name(`a response typed ${label} is unexpected_content_type`), async () => {
      await using f = await faulty(mode);
      f.server.inject(
        when(call(), (r) =>
          raw(
            body || JSON.stringify({ jsonrpc: "2.0", id: r.body!.id, result: { content: [] } }),
            type,
          )),
      );
      const error = await mcpError(f.client.callTool("echo", { message: "x" }));
      assertEquals([error.kind, error.reason], ["protocol", "unexpected_content_type"]);
      assertEquals(await echo(f.client), "ok");
    });
  }

  test(name("JSON typed with parameters or capitals is still JSON"), async () => {
    await using f = await faulty(mode);
    for (const type of ["application/json; charset=utf-8", "Application/JSON"]) {
      f.server.inject(when(call(), (r) =>
        raw(
          JSON.stringify({
            jsonrpc: "2.0",
            id: r.body!.id,
            result: { content: [{ type: "text", text: type }] },
          }),
          type,
        )));
      assertEquals(await echo(f.client), type);
    }
  });

  const badBodies: [string, string, string][] = [
    ["malformed JSON", '{"jsonrpc":"2.0","id":', "malformed_body"],
    ["an empty body", "", "malformed_body"],
    ["JSON that is not a message", '{"hello":"world"}', "malformed_body"],
    ["a JSON array", "[]", "malformed_body"],
  ];
  for (const [label, body, reason] of badBodies) {
    test(name(`${label} is a protocol error naming the request`), async () => {
      await using f = await faulty(mode);
      f.server.inject(when(call(), () => raw(body, "application/json")));
      const error = await mcpError(f.client.callTool("echo", { message: "x" }));
      assertEquals([error.kind, error.reason], ["protocol", reason]);
      assertStringIncludes(error.message, "tools/call");
      assertEquals(await echo(f.client), "ok");
    });
  }

  test(name("malformed and empty error bodies give the status"), async () => {
    await using f = await faulty(mode);
    for (const body of ['{"error":', "", "<html>oops</html>"]) {
      f.server.inject(when(call(), () => raw(body, "application/json", 400)));
      const error = await mcpError(f.client.callTool("echo", { message: "x" }));
      assertEquals([error.kind, error.reason], ["transport", "http_status"], body);
      assertEquals((error.data as { status: number }).status, 400);
    }
    assertEquals(await echo(f.client), "ok");
  });

  test(name("oversized bodies and events are refused; the next call works"), async () => {
    await using f = await faulty(mode, { maxResponseBytes: 4096, maxEventBytes: 2048 });
    const big = (id: unknown) => ({
      jsonrpc: "2.0",
      id,
      result: { content: [], pad: "x".repeat(5000) },
    });
    f.server.inject(when(call(), (r) => raw(JSON.stringify(big(r.body!.id)), "application/json")));
    assertEquals(
      (await mcpError(f.client.callTool("echo", { message: "x" }))).reason,
      "response_too_large",
    );
    f.server.inject(when(call(), (r) => sse(event(big(r.body!.id)))));
    assertEquals(
      (await mcpError(f.client.callTool("echo", { message: "x" }))).reason,
      "event_too_large",
    );
    f.server.inject(when(call(), () => sse(`data: ${"y".repeat(3000)}`, true)));
    const line = await mcpError(f.client.callTool("echo", { message: "x" }, { timeout: 2_000 }));
    assertEquals(line.reason, "event_too_large", "an event that never ends is cut at the limit");
    assertEquals(await echo(f.client), "ok");
  });
}

import { serve } from "../../runtime/serve.ts";
import { assert, assertEquals, assertRejects, runtime, test } from "../_harness.ts";

test(`serve: binds 127.0.0.1 on a free port and answers (${runtime})`, async () => {
  await using server = await serve(async (request) => {
    const url = new URL(request.url);
    return Response.json({
      method: request.method,
      path: url.pathname,
      body: await request.text(),
    });
  });
  assertEquals(server.url.hostname, "127.0.0.1");
  assert(server.port > 0, "a real port");
  assertEquals(server.url.port, String(server.port));
  const response = await fetch(new URL("/hello", server.url), { method: "POST", body: "hi" });
  assertEquals(await response.json(), { method: "POST", path: "/hello", body: "hi" });
});

test("serve: two servers get different ports", async () => {
  await using a = await serve(() => new Response("a"));
  await using b = await serve(() => new Response("b"));
  assert(a.port !== b.port);
  assertEquals(await (await fetch(a.url)).text(), "a");
  assertEquals(await (await fetch(b.url)).text(), "b");
});

test("serve: close() ends open streaming responses and stops listening", async () => {
  const server = await serve(() =>
    new Response(
      new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(new TextEncoder().encode("data: first\n\n"));
        },
      }),
      { headers: { "content-type": "text/event-stream" } },
    )
  );
  const response = await fetch(server.url);
  const reader = response.body!.getReader();
  const first = await reader.read();
  assertEquals(new TextDecoder().decode(first.value), "data: first\n\n");
  const started = Date.now();
  await server.close();
  assert(Date.now() - started < 2000, "close does not wait for the open stream");
  const ended = await reader.read().then((r) => r.done, () => true);
  assert(ended, "the stream ended");
  await assertRejects(() => fetch(server.url));
  await server.close(); // idempotent
});

test("serve: the signal closes the server", async () => {
  const controller = new AbortController();
  const server = await serve(() => new Response("ok"), { signal: controller.signal });
  assertEquals(await (await fetch(server.url)).text(), "ok");
  controller.abort();
  await server.close();
  await assertRejects(() => fetch(server.url));
});

test("serve: rejects a bad port and an aborted signal", async () => {
  await assertRejects(() => serve(() => new Response(""), { port: -1 }), RangeError);
  await assertRejects(() => serve(() => new Response(""), { signal: AbortSignal.abort() }));
});

test("serve: a port in use rejects", async () => {
  await using first = await serve(() => new Response("first"));
  await assertRejects(() => serve(() => new Response("second"), { port: first.port }));
});

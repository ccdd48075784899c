// JSON bodies past 1 MiB read as messages from their bytes (the pieced reader): the same
// message as the text gives, of a known length or chunked, from byte streams (Deno's bodies)
// and plain ones (Bun's); `maxResponseBytes` as exact as ever; a body that is not JSON refused
// as before, named by its first bytes; and over real HTTP on 127.0.0.1.
import { Hono } from "hono";
import { isMcpError } from "../../protocol/errors.ts";
import { decodeMessage } from "../../protocol/decode.ts";
import { serve } from "../../runtime/serve.ts";
import { readBoundedAnswer } from "../../transports/_long_body.ts";
import { LONG_MESSAGE } from "../../transports/_bytes.ts";
import { streamableHttp } from "../../transports/streamable_http.ts";
import { assert, assertEquals, assertStringIncludes, test } from "../_harness.ts";
import { modernRequest, recordingSink, rejection } from "./_http_helpers.ts";
import { byteStream, pieces, plainStream } from "./_streams.ts";

const encoder = new TextEncoder();

/** An answer to request `id` of about `bytes` bytes, escapes and non-ASCII text in it. */
function longAnswer(bytes: number, id = 1): string {
  const unit = 'é\\n😀\\"x\\u00e9 plain text ';
  const text = unit.repeat(Math.ceil(bytes / unit.length));
  return `{"jsonrpc":"2.0","id":${id},"result":{"content":[{"type":"text","text":"${text}"}]}}`;
}

/** A response of `bytes` in chunks: a byte stream or a plain one, its length declared or not. */
function response(bytes: Uint8Array, byteStreamed: boolean, declared: boolean): Response {
  const chunks = pieces(bytes, 65_536);
  const body = byteStreamed ? byteStream(chunks) : plainStream(chunks);
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (declared) headers["content-length"] = String(bytes.length);
  return new Response(body, { headers });
}

const KINDS = [
  { byteStream: true, declared: true },
  { byteStream: true, declared: false },
  { byteStream: false, declared: true },
  { byteStream: false, declared: false },
];

test("long bodies: a body past 1 MiB reads into the message its text gives", async () => {
  const text = longAnswer(3 * LONG_MESSAGE);
  const bytes = encoder.encode(text);
  const expected = decodeMessage(text);
  assert(expected.ok, "a message");
  for (const kind of KINDS) {
    const answer = await readBoundedAnswer(
      response(bytes, kind.byteStream, kind.declared),
      bytes.length,
    );
    assert(typeof answer !== "string", `read from its bytes: ${JSON.stringify(kind)}`);
    assert(answer.decoded.ok, "a message");
    assert(JSON.stringify(answer.decoded.message) === JSON.stringify(expected.message), "the same");
  }
  // A short body is still its text.
  const short = '{"jsonrpc":"2.0","id":1,"result":{}}';
  for (const kind of KINDS) {
    const answer = await readBoundedAnswer(
      response(encoder.encode(short), kind.byteStream, kind.declared),
      1024,
    );
    assertEquals(answer, short);
  }
});

test("long bodies: maxResponseBytes stays exact, the body cancelled past it", async () => {
  const bytes = encoder.encode(longAnswer(2 * LONG_MESSAGE));
  for (const kind of KINDS) {
    const at = await readBoundedAnswer(
      response(bytes, kind.byteStream, kind.declared),
      bytes.length,
    );
    assert(typeof at !== "string" && at.decoded.ok, `at the limit: ${JSON.stringify(kind)}`);
    let error: unknown;
    try {
      await readBoundedAnswer(response(bytes, kind.byteStream, kind.declared), bytes.length - 1);
    } catch (caught) {
      error = caught;
    }
    assert(isMcpError(error), `over the limit: ${JSON.stringify(kind)}`);
    assertEquals(error.reason, "response_too_large");
    assertEquals(error.data, { limit: bytes.length - 1 });
  }
  // A body that declares less than it sends (an injected fetch) is still bounded.
  const liar = response(bytes, false, false);
  const lying = new Response(liar.body, { headers: { "content-length": String(LONG_MESSAGE) } });
  let error: unknown;
  try {
    await readBoundedAnswer(lying, LONG_MESSAGE + 10);
  } catch (caught) {
    error = caught;
  }
  assert(isMcpError(error) && error.reason === "response_too_large", "bounded");
});

test("long bodies: a long body that is not JSON is refused as its text would be", async () => {
  const text = longAnswer(2 * LONG_MESSAGE).replace("plain", "pl\u0001ain");
  for (const kind of KINDS) {
    const answer = await readBoundedAnswer(
      response(encoder.encode(text), kind.byteStream, kind.declared),
      4 * LONG_MESSAGE,
    );
    assert(typeof answer !== "string", "read from its bytes");
    assert(!answer.decoded.ok, "refused");
    assertEquals(answer.decoded.reason, "not_json");
    assertEquals(answer.head, text.slice(0, answer.head.length));
  }
  const blank = await readBoundedAnswer(
    response(encoder.encode(" ".repeat(2 * LONG_MESSAGE)), false, true),
    4 * LONG_MESSAGE,
  );
  assert(typeof blank !== "string" && !blank.decoded.ok, "a blank body is not JSON");
});

test(
  "long bodies: over real HTTP, a long answer at maxResponseBytes arrives, one byte more fails, a malformed one is named by its start",
  async () => {
    const answer = encoder.encode(longAnswer(2 * LONG_MESSAGE, 1));
    const bad = encoder.encode(
      `{"jsonrpc":"2.0","id":3,"result":"${"y".repeat(2 * LONG_MESSAGE)}\u0001"}`,
    );
    const app = new Hono();
    let chunked = false;
    app.post("/", async (c) => {
      const { id } = await c.req.json();
      const bytes = id === 3 ? bad : answer;
      if (!chunked) return new Response(bytes, { headers: { "content-type": "application/json" } });
      const parts = pieces(bytes, 60_000);
      let i = 0;
      const body = new ReadableStream<Uint8Array>({
        pull(controller) {
          if (i < parts.length) controller.enqueue(parts[i++]);
          else controller.close();
        },
      });
      return new Response(body, { headers: { "content-type": "application/json" } });
    });
    await using server = await serve(app.fetch);
    for (const mode of [false, true]) {
      chunked = mode;
      const sink = recordingSink();
      const link = await streamableHttp(server.url, { maxResponseBytes: answer.length }).open(sink);
      await link.send(modernRequest(1, "tools/call"));
      const reply = await sink.next((m) => "id" in m && m.id === 1, 30_000);
      assertEquals(
        JSON.stringify(reply),
        JSON.stringify(JSON.parse(new TextDecoder().decode(answer))),
      );
      await link.close();
      const roomy = await streamableHttp(server.url, { maxResponseBytes: 4 * LONG_MESSAGE }).open(
        recordingSink(),
      );
      const refused = await rejection(roomy.send(modernRequest(3, "tools/call")));
      assertEquals([refused.kind, refused.reason], ["protocol", "malformed_body"]);
      assertEquals(refused.data, { reason: "not_json" });
      assertStringIncludes(refused.message, '{\\"jsonrpc\\":\\"2.0\\",\\"id\\":3,');
      await roomy.close();
      const tight = await streamableHttp(server.url, { maxResponseBytes: answer.length - 1 }).open(
        recordingSink(),
      );
      const over = await rejection(tight.send(modernRequest(1, "tools/call")));
      assertEquals([over.kind, over.reason], ["protocol", "response_too_large"]);
      await tight.close();
    }
  },
  { timeout: 60_000 },
);

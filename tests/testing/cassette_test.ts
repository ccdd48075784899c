// record/replay: cassettes from server-everything (stdio, legacy) and from the modern fixture
// (Streamable HTTP), replayed with the results the recording saw (the committed cassettes
// give the same results under Deno and Bun); a secret-bearing session leaves no secret in its
// cassette; an unexpected request fails clearly.
import { readFileSync } from "node:fs";
import { createClient } from "../../client/client.ts";
import { isMcpError } from "../../protocol/errors.ts";
import { serve } from "../../runtime/serve.ts";
import { streamableHttp } from "../../transports/streamable_http.ts";
import { mockServer, parseCassette, record, replay } from "../../testing/mod.ts";
import { assert, assertEquals, test } from "../_harness.ts";
import { mcpError } from "../client/_helpers.ts";
import { everythingSession, FIXTURE_HANDLER, fixtureSession } from "./_scenarios.ts";
import { recordEverything, recordFixture, run } from "./_sessions.ts";

const committed = (name: string) =>
  readFileSync(new URL(`../fixtures/cassettes/${name}`, import.meta.url), "utf8");

test(
  "record: server-everything over stdio replays with the results the recording saw",
  async () => {
    const { cassette, results } = await recordEverything();
    assertEquals((results as { era: string }).era, "legacy");
    const replayed = replay(cassette);
    assertEquals(await run(replayed, everythingSession), results);
    assertEquals(replayed.unexpected, []);
    assertEquals(replayed.unused(), []);
  },
  { timeout: 60_000 },
);

test(
  "record: the modern fixture over Streamable HTTP replays with the results the recording saw",
  async () => {
    const { cassette, results } = await recordFixture();
    assertEquals((results as { era: string }).era, "modern");
    assert(
      parseCassette(cassette).entries.some((entry) => entry.dir === "probe"),
      "the probe is recorded",
    );
    const replayed = replay(cassette);
    assertEquals(await run(replayed, fixtureSession, FIXTURE_HANDLER), results);
    assertEquals(replayed.unexpected, []);
  },
  { timeout: 30_000 },
);

for (const name of ["everything_stdio", "fixture_http"]) {
  test(`replay: the committed ${name} cassette gives its committed results`, async () => {
    const cassette = committed(`${name}.ndjson`);
    const session = name === "fixture_http" ? fixtureSession : everythingSession;
    const handler = name === "fixture_http" ? FIXTURE_HANDLER : undefined;
    const results = await run(replay(cassette), session, handler);
    assertEquals(results, JSON.parse(committed(`${name}.results.json`)));
    // Nothing of the machine that recorded it: no paths, no client identity, no real times.
    assertEquals(/(?:\/work\/|\/home\/|\/tmp\/|\/Users\/|C:\\\\)/.test(cassette), false);
    assertEquals(cassette.includes("cassette-host"), false, "the client identity is normalised");
  });
}

test("record: a secret-bearing session leaves no secret in its cassette (scanned)", async () => {
  const TOKEN = "tok-" + "7f3a9c1e5b2d8046".repeat(2);
  const API_KEY = "sk-live-4e8b2f6a1c9d3e7b";
  const PASSWORD = "hunter2-correct-horse";
  const server = mockServer({
    tools: [{
      name: "whoami",
      handler: async (args, ctx) => {
        const login = await ctx.elicit({
          message: "Password?",
          requestedSchema: { type: "object" },
        });
        return `token ${TOKEN} key ${String(args.apiKey)} password ${
          String((login.content as { password?: string }).password)
        } at ${new Date().toISOString()}`;
      },
    }],
  });
  await using http = await serve(server.http({ bearer: TOKEN }));
  const url = new URL("/mcp", http.url);
  const handler = {
    elicitation: () => ({ action: "accept" as const, content: { password: PASSWORD } }),
  };
  const recording = record(streamableHttp(url, { auth: { bearer: TOKEN } }), { redact: [TOKEN] });
  let live: unknown;
  {
    await using client = createClient({ transport: recording, handler, reconnect: false });
    live = await client.callTool("whoami", { apiKey: API_KEY, note: `Bearer ${TOKEN}` });
    await client.setAuth({ bearer: TOKEN }); // the recorder keeps the transport's own methods
    assertEquals(client.status().state, "ready");
  }
  // The transport already keeps its own bearer token out of what the client sees.
  assert(JSON.stringify(live).includes(API_KEY) && JSON.stringify(live).includes(PASSWORD));
  const call = server.requests.find((r) => r.method === "tools/call");
  assert(JSON.stringify(call?.params).includes(TOKEN), "the server got the token in the arguments");
  const cassette = recording.cassette();
  for (const secret of [TOKEN, API_KEY, PASSWORD, encodeURIComponent(TOKEN)]) {
    assertEquals(cassette.includes(secret), false, `the cassette holds ${secret.slice(0, 6)}…`);
  }
  assert(cassette.includes("[redacted]"));
  assertEquals(
    /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/.test(cassette.replace(/2000-01-01T00:00:00\.000Z/g, "")),
    false,
  );
  assert(server.requests.some((r) => r.headers?.authorization === `Bearer ${TOKEN}`));
  // The replay is matched through the same redaction, and answers without the secrets.
  await using client = createClient({
    transport: replay(cassette, { redact: [TOKEN] }),
    handler,
    reconnect: false,
  });
  const replayed = await client.callTool("whoami", { apiKey: API_KEY, note: `Bearer ${TOKEN}` });
  assertEquals(JSON.stringify(replayed).includes(TOKEN), false);
  assert(String(replayed.content[0].text).startsWith("token [redacted] key [redacted]"));
});

test("replay: an unexpected request fails with an McpError naming it; ids and timing do not matter", async () => {
  const server = mockServer({ tools: [{ name: "echo", handler: ({ text }) => String(text) }] });
  const recording = record(server.transport());
  {
    await using client = createClient({ transport: recording });
    await client.callTool("echo", { text: "one" });
    await client.callTool("echo", { text: "two" });
  }
  const entries = parseCassette(recording.cassette()).entries;
  const ids = entries.flatMap((e) => e.dir === "send" && "id" in e.message ? [e.message.id] : []);
  assertEquals(ids, ids.map((_, i) => i + 1), "ids are renumbered from 1");
  await using client = createClient({ transport: replay(recording.cassette()), reconnect: false });
  // Out of order: matched by method and params, not by position.
  assertEquals((await client.callTool("echo", { text: "two" })).content, [{
    type: "text",
    text: "two",
  }]);
  assertEquals((await client.callTool("echo", { text: "one" })).content, [{
    type: "text",
    text: "one",
  }]);
  const again = await mcpError(client.callTool("echo", { text: "one" }));
  assert(isMcpError(again));
  assertEquals([again.kind, again.reason], ["protocol", "unexpected_request"]);
  assert(again.message.includes("tools/call") && again.message.includes('"one"'), again.message);
  const lenient = replay(recording.cassette(), { allowRepeats: true });
  await using client2 = createClient({ transport: lenient });
  await client2.callTool("echo", { text: "one" });
  assertEquals((await client2.callTool("echo", { text: "one" })).content[0].text, "one");
});

test("parseCassette: a broken cassette is refused with invalid_cassette and the line", () => {
  for (
    const [text, line] of [["", 1], [
      '{"cassette":1,"transport":"stdio"}\n{"dir":"sideways","t":0}',
      2,
    ]] as const
  ) {
    try {
      parseCassette(text);
      throw new Error("accepted");
    } catch (error) {
      assert(isMcpError(error) && error.reason === "invalid_cassette", String(error));
      assert(error.message.includes(`line ${line}`), error.message);
    }
  }
});

test("record: normalize false keeps the wire as it went, credentials still redacted", async () => {
  const secret = "sk-live-wire-0123456789";
  const server = mockServer({
    tools: [{ name: "whoami", handler: () => `key ${secret} at 2031-05-06T07:08:09.000Z` }],
  });
  for (const normalize of [false, true]) {
    const recording = record(server.transport(), { redact: [secret], normalize });
    {
      await using client = createClient({
        transport: recording,
        clientInfo: { name: "my-host", version: "9.9.9" },
        protocol: "legacy",
      });
      await client.callTool("whoami", { apiKey: secret }, { onProgress: () => {} });
    }
    const cassette = recording.cassette();
    assert(!cassette.includes(secret), "no secret either way");
    const call = recording.entries.find((e) =>
      e.dir === "send" && (e.message as { method?: string }).method === "tools/call"
    )!;
    type Sent = {
      id: unknown;
      params: { _meta: { progressToken: unknown }; arguments: { apiKey: unknown } };
    };
    const message = (call as unknown as { message: Sent }).message;
    if (normalize) {
      assert(cassette.includes('"recorded-client"') && !cassette.includes("my-host"), cassette);
      assertEquals(message.params._meta.progressToken, "p1");
      assert(!cassette.includes("2031-05-06"), "times fixed");
    } else {
      // The client's own identity, its ids and progress tokens, the server's times.
      assert(cassette.includes('"name":"my-host"') && !cassette.includes("recorded-client"));
      assertEquals(message.params._meta.progressToken, message.id);
      assert(typeof message.id === "number", cassette);
      assert(cassette.includes("2031-05-06T07:08:09.000Z"), "times as sent");
      assertEquals(message.params.arguments.apiKey, "[redacted]");
    }
  }
});

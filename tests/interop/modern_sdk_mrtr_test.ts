// Interop of the MRTR driver with a modern (2026-07-28) server on the official
// @modelcontextprotocol/server 2.x (tests/fixtures/modern_sdk_mrtr_server.ts): one call
// over several rounds with elicitation, sampling and roots, over HTTP and over stdio; the
// SDK's HMAC requestState check refuses a tampered state.
import { connect } from "../../mod.ts";
import type { McpClient } from "../../client/types.ts";
import type { ClientHandler } from "../../protocol/capabilities.ts";
import type { JsonObject } from "../../protocol/jsonrpc.ts";
import { startModernSdkMrtrHttp } from "../fixtures/modern_sdk_mrtr_server.ts";
import { assert, assertEquals, assertStringIncludes, scriptCommand, test } from "../_harness.ts";
import { mcpError } from "../client/_helpers.ts";

function host() {
  const asked: string[] = [];
  const handler: ClientHandler = {
    elicitation(params) {
      asked.push(`elicitation:${String(params.message)}`);
      return { action: "accept", content: { name: "Grace" } }; // "team" comes from its default
    },
    sampling(params) {
      const text = (params.messages as { content: { text: string } }[])[0].content.text;
      asked.push(`sampling:${text}`);
      return {
        role: "assistant",
        content: { type: "text", text: "Welcome aboard!" },
        model: "stub",
      };
    },
    listRoots() {
      asked.push("roots");
      return [{ uri: "file:///src/app", name: "app" }];
    },
  };
  return { asked, handler };
}

const EXPECTED = {
  name: "Grace",
  team: "core",
  summary: "Welcome aboard!",
  roots: ["file:///src/app"],
};

async function onboard(client: McpClient, asked: string[]): Promise<void> {
  assertEquals(client.era(), "modern");
  const result = await client.callTool("onboard", {});
  assertEquals(result.isError, false);
  assertEquals(result.structuredContent, EXPECTED);
  assertEquals(asked, [
    "elicitation:Tell us who you are",
    "sampling:Welcome Grace in one line.",
    "roots",
  ]);
  asked.length = 0;
  const quick = await client.callTool("quick", {});
  assertEquals(quick.structuredContent, { ...EXPECTED, summary: "Welcome aboard!" });
  assertEquals(asked.length, 3, "one round with all three");
}

test("SDK 2.x MRTR over HTTP: three rounds of one call; every retry a new request", async () => {
  await using server = await startModernSdkMrtrHttp();
  const { asked, handler } = host();
  await using client = await connect(server.url, { handler, requestTimeout: 15_000 });
  await onboard(client, asked);
  const calls = server.bodies.filter((b) => (b as JsonObject)?.method === "tools/call")
    .map((b) => b as { id: unknown; params: JsonObject });
  const onboardCalls = calls.filter((c) => c.params.name === "onboard");
  assertEquals(onboardCalls.length, 4);
  assertEquals(new Set(onboardCalls.map((c) => c.id)).size, 4);
  assertEquals(
    onboardCalls.map((c) => Object.keys((c.params.inputResponses ?? {}) as JsonObject)),
    [[], ["profile"], ["summary"], ["workspace"]],
  );
  for (const call of onboardCalls.slice(1)) {
    assertStringIncludes(String(call.params.requestState), "v1.", "the SDK's signed state");
  }
  const quickCalls = calls.filter((c) => c.params.name === "quick");
  assertEquals(quickCalls.length, 2);
  assert(!("requestState" in quickCalls[1].params), "the server sent no state, none echoed");
}, { timeout: 60_000 });

test("SDK 2.x MRTR over HTTP: a tampered requestState is refused (-32602)", async () => {
  await using server = await startModernSdkMrtrHttp();
  const { handler } = host();
  const tampering: typeof fetch = async (input, init) => {
    if (typeof init?.body === "string" && init.body.includes('"requestState"')) {
      const body = JSON.parse(init.body);
      body.params.requestState = `${body.params.requestState.slice(0, -2)}AA`;
      init = { ...init, body: JSON.stringify(body) };
    }
    return await fetch(input, init);
  };
  await using client = await connect(server.url, {
    handler,
    requestTimeout: 15_000,
    http: { fetch: tampering },
  });
  const error = await mcpError(client.callTool("onboard", {}));
  assertEquals([error.kind, error.code], ["server", -32602]);
  assertStringIncludes(error.message, "requestState");
}, { timeout: 60_000 });

test("SDK 2.x MRTR over stdio: the same three rounds", async () => {
  const script = scriptCommand(new URL("../fixtures/modern_sdk_mrtr_server.ts", import.meta.url));
  const { asked, handler } = host();
  await using client = await connect({
    ...script,
    closeGracePeriod: 1_000,
    terminateGracePeriod: 1_000,
  }, { handler, requestTimeout: 15_000, readyTimeout: 30_000, reconnect: false });
  await onboard(client, asked);
}, { timeout: 60_000 });

test(
  "SDK 2.x to a legacy client: the same tool's input as server requests over stdio",
  async () => {
    const script = scriptCommand(new URL("../fixtures/modern_sdk_mrtr_server.ts", import.meta.url));
    const { asked, handler } = host();
    await using client = await connect({
      ...script,
      env: { MRTR_LEGACY: "serve" },
      closeGracePeriod: 1_000,
      terminateGracePeriod: 1_000,
    }, {
      handler,
      protocol: "legacy",
      requestTimeout: 15_000,
      readyTimeout: 30_000,
      reconnect: false,
    });
    assertEquals(client.era(), "legacy");
    const result = await client.callTool("onboard", {});
    assertEquals(result.structuredContent, EXPECTED);
    assertEquals(asked.length, 3);
  },
  { timeout: 60_000 },
);

// The answering core shared by both eras: what the client can answer, what its handler
// answers, SEP-1034 defaults, the capabilities built from the handler, and option checks.
import { createClient } from "../../client/client.ts";
import { withElicitationDefaults } from "../../client/handler/elicitation_defaults.ts";
import { answerInput, inputProblem } from "../../client/handler/answer.ts";
import type { ClientHandler, HandlerContext } from "../../protocol/capabilities.ts";
import { McpError } from "../../protocol/errors.ts";
import type { JsonObject } from "../../protocol/jsonrpc.ts";
import { inProcess } from "../../transports/in_process.ts";
import { createFixtureServer } from "../fixtures/server.ts";
import { assert, assertEquals, assertRejects, assertThrows, test } from "../_harness.ts";
import { FAST, fixtureClient, metaOf, requests } from "./_helpers.ts";

const sampling: ClientHandler["sampling"] = () => ({
  role: "assistant",
  content: { type: "text", text: "ok" },
  model: "stub",
});
const elicitation: ClientHandler["elicitation"] = () => ({ action: "accept", content: {} });
const listRoots: ClientHandler["listRoots"] = () => [{ uri: "file:///work" }];

const ctx: HandlerContext = {
  signal: new AbortController().signal,
  era: "legacy",
  protocolVersion: "2025-11-25",
};

const FORM = { message: "m", requestedSchema: { type: "object", properties: {} } };
const URL_MODE = { mode: "url", message: "m", url: "https://example.com/x", elicitationId: "e1" };
const MESSAGES = { messages: [], maxTokens: 10 };

test("inputProblem: -32601 for what was not declared, -32602 for modes and options", () => {
  const all = { sampling: {}, elicitation: { form: {}, url: {} }, roots: {} };
  const table: [string, string, JsonObject, JsonObject, number | undefined][] = [
    ["sampling declared", "sampling/createMessage", MESSAGES, all, undefined],
    ["sampling undeclared", "sampling/createMessage", MESSAGES, {}, -32601],
    [
      "sampling tools undeclared",
      "sampling/createMessage",
      { ...MESSAGES, tools: [] },
      all,
      -32602,
    ],
    [
      "sampling toolChoice undeclared",
      "sampling/createMessage",
      {
        ...MESSAGES,
        toolChoice: { mode: "auto" },
      },
      all,
      -32602,
    ],
    ["sampling tools declared", "sampling/createMessage", { ...MESSAGES, tools: [] }, {
      sampling: { tools: {} },
    }, undefined],
    ["sampling without messages", "sampling/createMessage", { maxTokens: 1 }, all, -32602],
    ["form declared", "elicitation/create", FORM, all, undefined],
    ["form, explicit mode", "elicitation/create", { ...FORM, mode: "form" }, all, undefined],
    ["form with elicitation: {}", "elicitation/create", FORM, { elicitation: {} }, undefined],
    ["form without a schema", "elicitation/create", { message: "m" }, all, -32602],
    ["elicitation undeclared", "elicitation/create", FORM, {}, -32601],
    ["url declared", "elicitation/create", URL_MODE, all, undefined],
    ["url with form only", "elicitation/create", URL_MODE, { elicitation: { form: {} } }, -32602],
    ["url with elicitation: {}", "elicitation/create", URL_MODE, { elicitation: {} }, -32602],
    ["url without url", "elicitation/create", { mode: "url", message: "m" }, all, -32602],
    ["form with url only", "elicitation/create", FORM, { elicitation: { url: {} } }, -32602],
    ["unknown mode", "elicitation/create", { ...FORM, mode: "voice" }, all, -32602],
    ["roots declared", "roots/list", {}, all, undefined],
    ["roots undeclared", "roots/list", {}, { sampling: {} }, -32601],
    ["unknown method", "tasks/get", {}, all, -32601],
  ];
  for (const [name, method, params, declared, code] of table) {
    assertEquals(inputProblem(method, params, declared)?.code, code, name);
  }
});

test("answerInput: answers, completes and checks what the handler returns", async () => {
  const ok = async (method: string, params: JsonObject, handler: ClientHandler) => {
    const outcome = await answerInput(method, params, handler, ctx);
    if (!outcome.ok) throw new Error(`${method}: ${outcome.message}`);
    return outcome.result;
  };
  // Sync and async callbacks both work; resultType is dropped from a sampling answer.
  assertEquals(
    await ok("sampling/createMessage", MESSAGES, {
      sampling: () => Promise.resolve({ ...sampling!(MESSAGES, ctx), resultType: "complete" }),
    }),
    { role: "assistant", content: { type: "text", text: "ok" }, model: "stub" },
  );
  assertEquals(await ok("roots/list", {}, { listRoots }), { roots: [{ uri: "file:///work" }] });
  assertEquals(
    await ok("elicitation/create", FORM, {
      elicitation: () => ({ action: "decline", content: { a: 1 } }),
    }),
    { action: "decline" },
    "content only on accept",
  );
  assertEquals(
    await ok("elicitation/create", URL_MODE, {
      elicitation: () => ({ action: "accept", content: {} }),
    }),
    { action: "accept" },
    "no content in URL mode",
  );

  const failures: [string, string, JsonObject, ClientHandler, "handler" | "invalid"][] = [
    ["throws", "roots/list", {}, {
      listRoots: () => {
        throw new Error("disk");
      },
    }, "handler"],
    ["rejects", "roots/list", {}, { listRoots: () => Promise.reject(new Error("x")) }, "handler"],
    ["no callback", "roots/list", {}, { sampling }, "invalid"],
    ["roots not file://", "roots/list", {}, { listRoots: () => [{ uri: "https://x" }] }, "invalid"],
    ["roots not an array", "roots/list", {}, { listRoots: () => ({}) as never }, "invalid"],
    ["sampling without model", "sampling/createMessage", MESSAGES, {
      sampling: () => ({ role: "assistant", content: { type: "text", text: "" } }),
    }, "invalid"],
    ["sampling bad role", "sampling/createMessage", MESSAGES, {
      sampling: () => ({ role: "system", content: {}, model: "m" }),
    }, "invalid"],
    ["elicitation bad action", "elicitation/create", FORM, {
      elicitation: () => ({ action: "maybe" }) as never,
    }, "invalid"],
    ["elicitation content not an object", "elicitation/create", FORM, {
      elicitation: () => ({ action: "accept", content: [] }) as never,
    }, "invalid"],
  ];
  for (const [name, method, params, handler, failure] of failures) {
    const outcome = await answerInput(method, params, handler, ctx);
    assertEquals(outcome.ok ? "ok" : outcome.failure, failure, name);
  }
});

test("withElicitationDefaults: SEP-1034 fills every primitive default the answer left out", () => {
  const schema = {
    type: "object",
    properties: {
      name: { type: "string", default: "John Doe" },
      age: { type: "integer", default: 30 },
      score: { type: "number", default: 95.5 },
      status: { type: "string", enum: ["active", "inactive"], default: "active" },
      verified: { type: "boolean", default: true },
      tags: { type: "array", items: { type: "string", enum: ["a", "b"] }, default: ["a"] },
      nickname: { type: "string" },
      ["__proto__"]: { type: "string", default: "own" },
    },
  };
  const params = JSON.parse(JSON.stringify({ message: "m", requestedSchema: schema }));
  const given = {
    action: "accept" as const,
    content: { age: 0, verified: false, score: undefined },
  };
  const answer = withElicitationDefaults(params, given);
  assertEquals(JSON.parse(JSON.stringify(answer)), {
    action: "accept",
    content: {
      age: 0,
      verified: false,
      name: "John Doe",
      score: 95.5,
      status: "active",
      tags: ["a"],
      ["__proto__"]: "own",
    },
  });
  assertEquals(Object.getPrototypeOf(answer.content), Object.prototype, "no prototype pollution");
  assertEquals(given.content, { age: 0, verified: false, score: undefined }, "not mutated");
  const tags = answer.content!.tags as string[];
  tags.push("b");
  assertEquals(params.requestedSchema.properties.tags.default, ["a"], "defaults are copied");
  // No content at all: every default.
  assertEquals(
    withElicitationDefaults({ requestedSchema: { properties: { n: { default: 1 } } } }, {
      action: "accept",
    }),
    { action: "accept", content: { n: 1 } },
  );
  // Not for decline, cancel or URL mode.
  for (const action of ["decline", "cancel"] as const) {
    assertEquals(withElicitationDefaults(params, { action }), { action });
  }
  assertEquals(
    withElicitationDefaults({ ...params, mode: "url" }, { action: "accept", content: {} }),
    { action: "accept" },
  );
});

test("capabilities: built only from the handler's callbacks, in both eras", async () => {
  const modern = async (handler: ClientHandler | undefined, extra = {}) => {
    const { client, server } = fixtureClient({}, { handler, ...extra });
    await using _ = client;
    await client.callTool("echo", { message: "x" });
    return metaOf(requests(server, "tools/call")[0])["io.modelcontextprotocol/clientCapabilities"];
  };
  assertEquals(await modern(undefined), {});
  assertEquals(await modern({}), {});
  assertEquals(await modern({ sampling }), { sampling: {} });
  assertEquals(await modern({ elicitation }), { elicitation: { form: {}, url: {} } });
  assertEquals(await modern({ elicitation }, { elicitationUrl: false }), {
    elicitation: { form: {} },
  });
  assertEquals(
    await modern({ sampling, elicitation, listRoots }, {
      samplingTools: true,
      samplingContext: true,
      rootsListChanged: true,
    }),
    {
      sampling: { tools: {}, context: {} },
      elicitation: { form: {}, url: {} },
      roots: {},
    },
  );

  const legacy = async (handler: ClientHandler | undefined, extra = {}) => {
    const { client, server } = fixtureClient({ mode: "legacy-only" }, { handler, ...extra });
    await using _ = client;
    await client.ready();
    return (requests(server, "initialize")[0].params as JsonObject).capabilities;
  };
  assertEquals(await legacy(undefined), {});
  // listRoots implemented: roots.listChanged is declared (notifyRootsChanged can send it).
  assertEquals(await legacy({ listRoots }), { roots: { listChanged: true } });
  assertEquals(await legacy({ listRoots }, { rootsListChanged: false }), { roots: {} });
  assertEquals(await legacy({ elicitation }, { protocol: "2025-06-18" }), { elicitation: {} });
});

test("options: maxRounds, elicitationUrl, assigns and principal are checked", async () => {
  const transport = inProcess(createFixtureServer());
  for (const maxRounds of [0, -1, 1.5, "3", Infinity]) {
    assertThrows(() => createClient({ transport, maxRounds: maxRounds as number }), TypeError);
  }
  assertThrows(() => createClient({ transport, elicitationUrl: "no" as never }), TypeError);
  const { client, server } = fixtureClient({}, { reconnect: FAST });
  await using _ = client;
  await client.ready();
  const before = server.received.length;
  await assertRejects(() => client.callTool("echo", {}, { assigns: [] as never }), TypeError);
  await assertRejects(() => client.getPrompt("args", {}, { principal: 7 as never }), TypeError);
  await assertRejects(
    () => client.readResource("test://resource1", { assigns: "x" as never }),
    TypeError,
  );
  assertEquals(server.received.length, before, "nothing was sent");
});

test("a handler's McpError keeps its identity in answerInput", async () => {
  const error = new McpError("User rejected sampling", { kind: "denied", code: -1 });
  const outcome = await answerInput("sampling/createMessage", MESSAGES, {
    sampling: () => Promise.reject(error),
  }, ctx);
  assert(!outcome.ok && outcome.failure === "handler" && outcome.error === error);
});

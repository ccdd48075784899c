// Validation: arguments against inputSchema before anything is sent, structuredContent
// against outputSchema, schemas compiled once per listing, unusable schemas left out.
import type { ToolResult } from "../../client/types.ts";
import {
  compileSchema,
  compileSchemaNow,
  loadValidator,
  type SchemaIssue,
} from "../../governance/validate.ts";
import { assert, assertEquals, assertStringIncludes, assertThrows, test } from "../_harness.ts";
import { mcpError } from "../client/_helpers.ts";
import { calls, governed, server, tools } from "./_helpers.ts";

const SCHEMA = {
  type: "object",
  properties: {
    n: { type: "integer", minimum: 3 },
    tags: { type: "array", items: { type: "string" } },
    mode: { enum: ["fast", "slow"] },
    ref: { $ref: "#/$defs/id" },
  },
  required: ["n"],
  additionalProperties: false,
  $defs: { id: { type: "string", pattern: "^[a-z]+$" } },
};

// The validator loads on first use; the synchronous compiler runs once it has.
await loadValidator();

test("compileSchema(): loads the validator, then compiles; an unusable schema rejects", async () => {
  const check = await compileSchema(SCHEMA);
  assertEquals(check({ n: 5 }), []);
  const error = await compileSchema({ type: "objekt" }).then(() => undefined, (e) => e);
  assertEquals((error as { reason?: string }).reason, "invalid_schema");
});

test("compileSchemaNow(): issues name the path, keyword, expected and got (table)", () => {
  const check = compileSchemaNow(SCHEMA);
  const table: [unknown, SchemaIssue[]][] = [
    [{ n: 3 }, []],
    [{}, [{
      path: "",
      keyword: "required",
      expected: "n",
      message: 'Instance does not have required property "n".',
    }]],
    [{ n: 2.5 }, [
      {
        path: "/n",
        keyword: "type",
        expected: "integer",
        got: 2.5,
        message: 'Instance type "number" is invalid. Expected "integer".',
      },
      { path: "/n", keyword: "minimum", expected: 3, got: 2.5, message: "2.5 is less than 3." },
    ]],
    [{ n: 3, tags: ["a", 7] }, [{
      path: "/tags/1",
      keyword: "type",
      expected: "string",
      got: 7,
      message: 'Instance type "number" is invalid. Expected "string".',
    }]],
    [{ n: 3, mode: "warp" }, [{
      path: "/mode",
      keyword: "enum",
      expected: ["fast", "slow"],
      got: "warp",
      message: 'Instance does not match any of ["fast","slow"].',
    }]],
    [{ n: 3, extra: { deep: 1 } }, [{
      path: "/extra",
      keyword: "additionalProperties",
      message: '"/extra" is not allowed',
    }]],
    [{ n: 3, ref: "ABC" }, [{
      path: "/ref",
      keyword: "pattern",
      got: "ABC",
      expected: "^[a-z]+$",
      message: "String does not match pattern.",
    }]],
    [{ n: 3, tags: { a: 1 } }, [{
      path: "/tags",
      keyword: "type",
      expected: "array",
      got: "object",
      message: 'Instance type "object" is invalid. Expected "array".',
    }]],
  ];
  for (const [instance, expected] of table) {
    assertEquals(check(instance), expected, JSON.stringify(instance));
  }
});

test("compileSchemaNow(): schemas that cannot be used without a network (table)", () => {
  const table: [unknown, string][] = [
    [{ properties: { a: { $ref: "https://example.com/a.json" } } }, "remote references"],
    [{ properties: { a: { $ref: "#/$defs/missing" } } }, "does not resolve"],
    [{ properties: { a: { pattern: "([" } } }, "not a valid regular expression"],
    [{ patternProperties: { "([": {} } }, "patternProperties"],
    [{ type: "objekt" }, "not a JSON type"],
    ["object", "not an object"],
  ];
  for (const [schema, message] of table) {
    const error = assertThrows(() => compileSchemaNow(schema), Error, message);
    assertEquals((error as { reason?: string }).reason, "invalid_schema");
  }
  // Local references, anchors and $ids resolve; a property named like a keyword is data.
  compileSchemaNow({ $defs: { a: { $anchor: "x" } }, properties: { a: { $ref: "#x" } } });
  compileSchemaNow({ properties: { type: { type: "string" }, pattern: { type: "string" } } });
});

test("validate: bad arguments are refused before any request, with the issues as data", async () => {
  const mock = server();
  let asked = 0;
  await using client = governed(mock, {
    validate: true,
    policy: { default: "ask", approver: () => (asked++, "allow") },
  });
  const error = await mcpError(client.callTool("add", { a: 1, b: -1, c: true }));
  assertEquals([error.kind, error.reason], ["validation", "invalid_arguments"]);
  assertEquals(error.data, [
    { path: "/b", keyword: "minimum", expected: 0, got: -1, message: "-1 is less than 0." },
    { path: "/c", keyword: "additionalProperties", message: '"/c" is not allowed' },
  ]);
  assertStringIncludes(error.message, 'tool "add"');
  assertStringIncludes(error.message, "at /b");
  assertEquals([calls(mock), asked], [0, 0], "neither the server nor the approver was asked");
  const result = await client.callTool("add", { a: 1, b: 2 });
  assertEquals((result as ToolResult).structuredContent, { sum: 3 });
  assertEquals(asked, 1);
});

test("validate: structuredContent is checked against outputSchema", async () => {
  const defs = tools();
  defs[2].handler = () => ({ sum: "three" });
  defs.push({
    name: "plain",
    inputSchema: { type: "object" },
    outputSchema: { type: "object" },
    handler: () => "only text",
  });
  defs.push({
    name: "failing",
    inputSchema: { type: "object" },
    outputSchema: { type: "object", required: ["x"] },
    handler: () => ({ content: [{ type: "text", text: "it broke" }], isError: true }),
  });
  const mock = server({ tools: defs });
  await using client = governed(mock, { validate: true });
  const error = await mcpError(client.callTool("add", { a: 1, b: 2 }));
  assertEquals([error.kind, error.reason], ["validation", "invalid_output"]);
  assertEquals((error.data as SchemaIssue[])[0].path, "/sum");
  const missing = await mcpError(client.callTool("plain", {}));
  assertEquals([missing.reason, (missing.data as SchemaIssue[])[0].keyword], [
    "invalid_output",
    "outputSchema",
  ]);
  const failing = await client.callTool("failing", {});
  assertEquals((failing as ToolResult).isError, true, "a tool error is no output to check");
});

test("validate: an unusable schema leaves the tool out with a warning; schemas compile once", async () => {
  const defs = tools();
  let reads = 0;
  const counted: Record<string, unknown> = { properties: { message: { type: "string" } } };
  Object.defineProperty(counted, "type", {
    enumerable: true,
    get: () => (reads++, "object"),
  });
  defs[0].inputSchema = counted;
  defs.push({
    name: "remote",
    inputSchema: { type: "object", properties: { a: { $ref: "https://example.com/s.json" } } },
  });
  const mock = server({ tools: defs });
  const warnings: string[] = [];
  await using client = governed(mock, {
    validate: true,
    onWarning: (message) => warnings.push(message),
    protocol: "legacy",
  });
  const listed = await client.listAllTools();
  assertEquals(listed.map((t) => t.name), ["echo", "rm", "add", "admin_reset"]);
  assertEquals(warnings.length, 1);
  assertStringIncludes(warnings[0], 'tool "remote" is left out');
  assertStringIncludes(warnings[0], "remote references are not fetched");
  const error = await mcpError(client.callTool("remote", { a: 1 }));
  assertEquals([error.kind, error.reason], ["validation", "invalid_schema"]);
  const afterListing = reads;
  assert(afterListing > 0, "the schema was compiled at listing");
  for (let i = 0; i < 3; i++) await client.callTool("echo", { message: `m${i}` });
  assertEquals(reads, afterListing, "no schema work per call");
  client.cachedTools();
  assertEquals(warnings.length, 1, "warned once per definition");
  assertEquals(calls(mock), 3);
});

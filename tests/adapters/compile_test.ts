// The dialect compiler over a tool list: names, the root made an object with properties,
// strict where the schema allows it and off (with the reason) where it does not.
import { compileTools } from "../../adapters/_compile.ts";
import type { Tool } from "../../client/shapes.ts";
import { assert, assertEquals, assertStringIncludes, test } from "../_harness.ts";

const TOOLS: Tool[] = [
  { name: "plain", description: "Plain", inputSchema: { type: "object" } },
  { name: "titled.only", title: "Has a title", inputSchema: {} },
  {
    name: "free",
    inputSchema: { type: "object", properties: { env: { type: "object" } } },
  },
  {
    name: "tree",
    inputSchema: {
      type: "object",
      properties: { root: { $ref: "#/$defs/node" } },
      $defs: {
        node: {
          type: "object",
          properties: { kids: { type: "array", items: { $ref: "#/$defs/node" } } },
        },
      },
    },
  },
  { name: "plain", description: "a duplicate", inputSchema: { type: "object" } },
];

test("compile: loose — names, descriptions, roots with properties, refs inlined", () => {
  const compiled = compileTools(TOOLS, { strict: false });
  assertEquals(compiled.map((c) => [c.name, c.tool.name, c.description, c.strict]), [
    ["plain", "plain", "Plain", false],
    ["titled_only", "titled.only", "Has a title", false],
    ["free", "free", undefined, false],
    ["tree", "tree", undefined, false],
  ]);
  assertEquals(compiled[0].parameters, { type: "object", properties: {} });
  assertEquals(compiled[1].parameters, { type: "object", properties: {} });
  assertEquals(compiled[1].notes, ['renamed from "titled.only"']);
  assert(!JSON.stringify(compiled[3].parameters).includes("$ref"), "no $ref left");
  assertStringIncludes(compiled[3].notes.join("\n"), "recursive #/$defs/node");
});

test("compile: strict where it can be, off with a note where it cannot", () => {
  const compiled = compileTools(TOOLS, { strict: true });
  assertEquals(compiled.map((c) => c.strict), [true, true, false, false]);
  assertEquals(compiled[0].parameters, {
    type: "object",
    properties: {},
    required: [],
    additionalProperties: false,
  });
  assertStringIncludes(
    compiled[2].notes.join("\n"),
    "not strict: at /env: an object without properties",
  );
  // A tool that is not strict keeps its loose schema.
  assertEquals(compiled[2].parameters, TOOLS[2].inputSchema);
  assertStringIncludes(compiled[3].notes.join("\n"), "not strict: a reference left open");
});

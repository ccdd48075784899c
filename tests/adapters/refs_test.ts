// `$ref` inlining of the dialect compiler, table first: local `$defs`/`definitions`/JSON
// pointers replaced by their targets (merged with the keywords beside them), containers
// dropped, recursion bounded and reported, unresolvable references left open and reported.
import { inlineRefs, RECURSION_LIMIT } from "../../adapters/_refs.ts";
import type { JsonSchema } from "../../adapters/_walk.ts";
import { assertEquals, test } from "../_harness.ts";

const CASES: { what: string; input: JsonSchema; schema: JsonSchema; open?: string[] }[] = [
  {
    what: "a $defs reference, with a description beside it",
    input: {
      $schema: "https://json-schema.org/draft/2020-12/schema",
      type: "object",
      properties: { at: { $ref: "#/$defs/point", description: "Where" } },
      $defs: { point: { type: "object", properties: { x: { type: "number" } } } },
    },
    schema: {
      type: "object",
      properties: {
        at: { type: "object", properties: { x: { type: "number" } }, description: "Where" },
      },
    },
  },
  {
    what: "draft-07 definitions, a reference to a reference, inside items and anyOf",
    input: {
      type: "object",
      properties: {
        list: { type: "array", items: { $ref: "#/definitions/alias" } },
        either: { anyOf: [{ $ref: "#/definitions/name" }, { type: "null" }] },
      },
      definitions: { alias: { $ref: "#/definitions/name" }, name: { type: "string" } },
    },
    schema: {
      type: "object",
      properties: {
        list: { type: "array", items: { type: "string" } },
        either: { anyOf: [{ type: "string" }, { type: "null" }] },
      },
    },
  },
  {
    what: "a JSON pointer with escapes (~1 is /, ~0 is ~, percent-encoding)",
    input: {
      type: "object",
      properties: { a: { $ref: "#/$defs/a~1b~0c%20d" } },
      $defs: { "a/b~c d": { type: "integer" } },
    },
    schema: { type: "object", properties: { a: { type: "integer" } } },
  },
  {
    what: "property names and enum values that look like keywords are data",
    input: {
      type: "object",
      properties: { $ref: { type: "string", enum: ["#/$defs/x"], default: { $ref: "#/nope" } } },
    },
    schema: {
      type: "object",
      properties: { $ref: { type: "string", enum: ["#/$defs/x"], default: { $ref: "#/nope" } } },
    },
  },
  {
    what: "an unresolvable and an external reference are left open",
    input: {
      type: "object",
      properties: {
        a: { $ref: "#/$defs/missing" },
        b: { $ref: "https://example.com/schema.json", description: "Remote" },
      },
    },
    schema: {
      type: "object",
      properties: {
        a: { description: "(unresolved reference #/$defs/missing)" },
        b: { description: "Remote (unresolved reference https://example.com/schema.json)" },
      },
    },
    open: ["unresolved #/$defs/missing", "unresolved https://example.com/schema.json"],
  },
];

for (const { what, input, schema, open = [] } of CASES) {
  test(`refs: ${what}`, () => {
    const before = structuredClone(input);
    const inlined = inlineRefs(input);
    assertEquals(inlined.schema, schema);
    assertEquals(inlined.open, open);
    assertEquals(input, before, "the input is not changed");
  });
}

test(`refs: a recursive reference is inlined ${RECURSION_LIMIT} times, then left open`, () => {
  const input = {
    type: "object",
    properties: { root: { $ref: "#/$defs/node" } },
    $defs: {
      node: {
        type: "object",
        properties: { value: { type: "string" }, child: { $ref: "#/$defs/node" } },
      },
    },
  };
  const { schema, open } = inlineRefs(input);
  assertEquals(open, ["recursive #/$defs/node"]);
  const level = (s: JsonSchema) => (s.properties as Record<string, JsonSchema>);
  const first = level(schema).root;
  const second = level(first).child;
  assertEquals(level(second).value, { type: "string" });
  assertEquals(level(second).child, {
    description: "(recursive: the same shape as the enclosing #/$defs/node)",
  });
});

test("refs: a reference to the root ('#') is recursion too", () => {
  const { schema, open } = inlineRefs({
    type: "object",
    properties: { next: { $ref: "#" } },
  });
  assertEquals(open, ["recursive #"]);
  const next = (schema.properties as Record<string, JsonSchema>).next;
  assertEquals(next.type, "object");
});

// Strict mode of the dialect compiler, table first: the rewrite (closed objects, all
// required, optionals nullable, oneOf as anyOf, allOf merged, keywords moved), the problems
// that turn strict mode off for a tool, and the way back (`restore`).
import { moveKeywords } from "../../adapters/_keywords.ts";
import { type Plan, restore } from "../../adapters/_plan.ts";
import { STRICT_DEPTH, toStrict } from "../../adapters/_strict.ts";
import type { JsonSchema } from "../../adapters/_walk.ts";
import { assertEquals, assertStringIncludes, test } from "../_harness.ts";

const obj = (properties: JsonSchema, required: string[] = []) => ({
  type: "object",
  properties,
  required,
});
const closed = (properties: JsonSchema) => ({
  type: "object",
  properties,
  required: Object.keys(properties),
  additionalProperties: false,
});

const REWRITES: { what: string; input: JsonSchema; schema: JsonSchema; plan?: Plan }[] = [
  {
    what: "an optional string becomes nullable and required",
    input: obj({ q: { type: "string" }, n: { type: "integer" } }, ["q"]),
    schema: closed({ q: { type: "string" }, n: { type: ["integer", "null"] } }),
    plan: { nulls: ["n"] },
  },
  {
    what: "an optional enum takes null in its enum too",
    input: obj({ unit: { type: "string", enum: ["c", "f"] } }),
    schema: closed({ unit: { type: ["string", "null"], enum: ["c", "f", null] } }),
    plan: { nulls: ["unit"] },
  },
  {
    what: "an optional object and a const go through anyOf with null",
    input: obj({ at: obj({ x: { type: "number" } }, ["x"]), mode: { const: "fast" } }),
    schema: closed({
      at: { anyOf: [closed({ x: { type: "number" } }), { type: "null" }] },
      mode: { anyOf: [{ const: "fast" }, { type: "null" }] },
    }),
    plan: { nulls: ["at", "mode"] },
  },
  {
    what: "an optional property that already took null keeps its null (not removed later)",
    input: obj({ note: { type: ["string", "null"] } }),
    schema: closed({ note: { type: ["string", "null"] } }),
  },
  {
    what: "nested: optionals inside a required object and inside array items",
    input: obj({
      filter: obj({ tag: { type: "string" }, limit: { type: "integer" } }, ["tag"]),
      rows: { type: "array", items: obj({ id: { type: "string" } }) },
    }, ["filter", "rows"]),
    schema: closed({
      filter: closed({ tag: { type: "string" }, limit: { type: ["integer", "null"] } }),
      rows: { type: "array", items: closed({ id: { type: ["string", "null"] } }) },
    }),
    plan: {
      properties: { filter: { nulls: ["limit"] }, rows: { items: { nulls: ["id"] } } },
    },
  },
  {
    what: "oneOf is read as anyOf; an optional anyOf gets a null branch",
    input: obj({
      v: { oneOf: [{ type: "string" }, obj({ k: { type: "string" } })] },
    }),
    schema: closed({
      v: {
        anyOf: [{ type: "string" }, closed({ k: { type: ["string", "null"] } }), { type: "null" }],
      },
    }),
    plan: {
      nulls: ["v"],
      properties: {
        v: {
          anyOf: [
            { match: { types: ["string"], keys: undefined }, plan: undefined },
            { match: { types: ["object"], keys: ["k"] }, plan: { nulls: ["k"] } },
          ],
        },
      },
    },
  },
  {
    what: "an allOf of objects is merged",
    input: {
      allOf: [obj({ a: { type: "string" } }, ["a"]), obj({ b: { type: "number" } })],
    },
    schema: closed({ a: { type: "string" }, b: { type: ["number", "null"] } }),
    plan: { nulls: ["b"] },
  },
  {
    what: "keywords outside the subset move into the description; formats outside it too",
    input: obj({
      name: { type: "string", description: "Who", minLength: 2, default: "Ada" },
      site: { type: "string", format: "uri" },
      when: { type: "string", format: "date-time", pattern: "^2" },
      tags: { type: "array", items: { type: "string" }, uniqueItems: true, maxItems: 3 },
    }, ["name", "site", "when", "tags"]),
    schema: closed({
      name: { type: "string", description: 'Who (minLength: 2; default: "Ada")' },
      site: { type: "string", description: '(format: "uri")' },
      when: { type: "string", format: "date-time", pattern: "^2" },
      tags: {
        type: "array",
        items: { type: "string" },
        maxItems: 3,
        description: "(uniqueItems: true)",
      },
    }),
  },
  {
    what: "the root without properties takes none; $-keywords and x- extensions are dropped",
    input: { type: "object", $comment: "none", "x-mcp-header": "Region" },
    schema: { type: "object", properties: {}, required: [], additionalProperties: false },
  },
];

for (const { what, input, schema, plan } of REWRITES) {
  test(`strict: ${what}`, () => {
    const before = structuredClone(input);
    const strict = toStrict(input);
    assertEquals(strict.problems, []);
    assertEquals(strict.schema, schema);
    assertEquals(strict.plan, plan);
    assertEquals(input, before, "the input is not changed");
  });
}

const PROBLEMS: { what: string; input: JsonSchema; problem: string }[] = [
  {
    what: "a free-form object",
    input: obj({ env: { type: "object", additionalProperties: { type: "string" } } }),
    problem: "at /env: an object without properties (free-form)",
  },
  {
    what: "a schema without a type",
    input: obj({ any: {} }),
    problem: "at /any: a schema without a type",
  },
  {
    what: "a tuple",
    input: obj({ pair: { type: "array", items: [{ type: "string" }, { type: "number" }] } }),
    problem: "at /pair: an array without one items schema",
  },
  {
    what: "an allOf that is not of objects",
    input: obj({ v: { allOf: [{ type: "string" }, true] } }),
    problem: "at /v: an allOf that is not a list of objects",
  },
  {
    what: "a root that is not an object",
    input: { type: "string" },
    problem: "at /: the arguments are not an object",
  },
];

for (const { what, input, problem } of PROBLEMS) {
  test(`strict: cannot be strict: ${what}`, () => {
    assertEquals(toStrict(input).problems.includes(problem), true, toStrict(input).problems.join());
  });
}

test(`strict: nesting deeper than ${STRICT_DEPTH} is a problem`, () => {
  let schema: JsonSchema = { type: "string" };
  for (let i = 0; i < STRICT_DEPTH + 1; i++) schema = obj({ down: schema }, ["down"]);
  assertStringIncludes(toStrict(schema).problems.join("\n"), `nested deeper than ${STRICT_DEPTH}`);
});

test("keywords: moveKeywords keeps the subset, says the rest, and is shallow", () => {
  const { schema, moved } = moveKeywords({
    type: "object",
    properties: { a: { minLength: 1 } },
    minProperties: 1,
    examples: [{ a: "x" }],
    $id: "urn:x",
  });
  assertEquals(moved, ["minProperties", "examples"]);
  assertEquals(schema, {
    type: "object",
    properties: { a: { minLength: 1 } },
    description: '(minProperties: 1; examples: [{"a":"x"}])',
  });
});

const RESTORES: { what: string; value: unknown; plan?: Plan; expected: unknown }[] = [
  { what: "no plan: as is", value: { a: null }, expected: { a: null } },
  {
    what: "a null for a formerly optional property is removed, others kept",
    value: { q: "mcp", n: null, keep: null },
    plan: { nulls: ["n"] },
    expected: { q: "mcp", keep: null },
  },
  {
    what: "recursively, in objects and array items",
    value: { filter: { tag: "x", limit: null }, rows: [{ id: null }, { id: "7" }] },
    plan: { properties: { filter: { nulls: ["limit"] }, rows: { items: { nulls: ["id"] } } } },
    expected: { filter: { tag: "x" }, rows: [{}, { id: "7" }] },
  },
  {
    what: "anyOf: the branch whose keys match",
    value: { v: { k: null } },
    plan: {
      nulls: ["v"],
      properties: {
        v: {
          anyOf: [
            { match: { types: ["object"], keys: ["other"] }, plan: { nulls: ["other"] } },
            { match: { types: ["object"], keys: ["k"] }, plan: { nulls: ["k"] } },
          ],
        },
      },
    },
    expected: { v: {} },
  },
  {
    what: "anyOf: a value no branch fits is kept",
    value: { v: 3 },
    plan: {
      properties: { v: { anyOf: [{ match: { types: ["string"] }, plan: { nulls: ["x"] } }] } },
    },
    expected: { v: 3 },
  },
];

for (const { what, value, plan, expected } of RESTORES) {
  test(`restore: ${what}`, () => {
    const before = structuredClone(value);
    assertEquals(restore(value, plan), expected);
    assertEquals(value, before, "the model's value is not changed");
  });
}

test("strict then restore: the model's all-present arguments come back in the original shape", () => {
  const input = obj({
    query: { type: "string" },
    page: obj({ size: { type: "integer" }, after: { type: "string" } }, ["size"]),
    sort: { type: "string", enum: ["asc", "desc"] },
  }, ["query"]);
  const { schema, plan, problems } = toStrict(input);
  assertEquals(problems, []);
  assertEquals((schema.required as string[]).sort(), ["page", "query", "sort"]);
  const model = { query: "q", page: { size: 5, after: null }, sort: null };
  assertEquals(restore(model, plan), { query: "q", page: { size: 5 } });
  assertEquals(restore({ query: "q", page: null, sort: "asc" }, plan), { query: "q", sort: "asc" });
});

import { assert, assertEquals, assertInstanceOf, assertThrows, test } from "../_harness.ts";
import { McpError } from "../../protocol/errors.ts";
import {
  filterToolsWithValidHeaders,
  type McpHeaderDeclaration,
  mcpHeaderDeclarations,
  paramHeaders,
} from "../../protocol/param_headers.ts";

const X = "x-mcp-header";
const object = (properties: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  type: "object",
  properties,
  ...extra,
});
const str = (header?: unknown, type: unknown = "string") => ({
  type,
  ...(header === undefined ? {} : { [X]: header }),
});

test("mcpHeaderDeclarations() reads valid declarations", () => {
  const table: [string, unknown, McpHeaderDeclaration[]][] = [
    ["no schema", undefined, []],
    ["not an object", "schema", []],
    ["no declarations", object({ a: str() }), []],
    ["one string", object({ region: str("Region") }), [{ name: "Region", path: ["region"] }]],
    ["integer and boolean", object({ n: str("N", "integer"), b: str("Flag", "boolean") }), [
      { name: "N", path: ["n"] },
      { name: "Flag", path: ["b"] },
    ]],
    [
      "nested through properties",
      object({ loc: object({ zone: str("Zone", "integer") }) }),
      [{ name: "Zone", path: ["loc", "zone"] }],
    ],
    ["every tchar", object({ a: str("!#$%&'*+-.^_`|~09AZaz") }), [
      { name: "!#$%&'*+-.^_`|~09AZaz", path: ["a"] },
    ]],
    ["a property named x-mcp-header", object({ [X]: str() }), []],
    [
      "the keyword inside data keywords is data",
      object({
        a: { type: "object", default: { [X]: "D" }, examples: [{ [X]: "E" }], enum: [{ [X]: 1 }] },
      }),
      [],
    ],
    [
      "unknown keywords are not schemas",
      object({ a: str() }, { "x-vendor": { [X]: "V" } }),
      [],
    ],
  ];
  for (const [label, schema, expected] of table) {
    assertEquals(mcpHeaderDeclarations(schema), { ok: true, headers: expected }, label);
  }
});

test("mcpHeaderDeclarations() rejects every invalid declaration", () => {
  const table: [string, unknown][] = [
    ["empty name", object({ a: str("") })],
    ["number name", object({ a: str(5) })],
    ["null name", object({ a: str(null) })],
    ["a space", object({ a: str("Bad Name") })],
    ["a colon", object({ a: str("a:b") })],
    ["a slash", object({ a: str("a/b") })],
    ["parentheses", object({ a: str("(x)") })],
    ["non-ASCII", object({ a: str("Région") })],
    ["a control character", object({ a: str("a\u0001") })],
    ["duplicate", object({ a: str("Region"), b: str("Region") })],
    ["duplicate in another case", object({ a: str("Region"), b: str("REGION") })],
    ["duplicate across levels", object({ a: str("Zone"), b: object({ c: str("zone") }) })],
    ["type number", object({ a: str("A", "number") })],
    ["type object", object({ a: str("A", "object") })],
    ["type array", object({ a: str("A", "array") })],
    ["no type", object({ a: { [X]: "A" } })],
    ["a type list", object({ a: str("A", ["string", "null"]) })],
    ["beside $ref", object({ a: { type: "string", $ref: "#/$defs/s", [X]: "A" } })],
    ["at the root", { type: "string", [X]: "Root" }],
    ["under items", object({ a: { type: "array", items: str("A") } })],
    ["under tuple items", object({ a: { type: "array", items: [str("A")] } })],
    ["under prefixItems", object({ a: { type: "array", prefixItems: [str("A")] } })],
    [
      "under properties under items",
      object({ a: { type: "array", items: object({ b: str("B") }) } }),
    ],
    ["under oneOf", object({ a: { oneOf: [str("A")] } })],
    ["under anyOf", object({ a: { anyOf: [str("A")] } })],
    ["under allOf", { allOf: [object({ a: str("A") })] }],
    ["under not", object({ a: { not: str("A") } })],
    ["under if", object({ a: { if: str("A") } })],
    ["under then", object({ a: { then: str("A") } })],
    ["under else", object({ a: { else: str("A") } })],
    ["under $defs", object({ a: { $ref: "#/$defs/s" } }, { $defs: { s: str("S") } })],
    ["under definitions", object({}, { definitions: { s: str("S") } })],
    ["under additionalProperties", object({}, { additionalProperties: str("A") })],
    ["under patternProperties", object({}, { patternProperties: { "^a": str("A") } })],
    ["under dependentSchemas", object({}, { dependentSchemas: { a: object({ b: str("B") }) } })],
  ];
  for (const [label, schema] of table) {
    const result = mcpHeaderDeclarations(schema);
    assert(!result.ok, label);
    assert(result.reason.length > 0, label);
  }
});

test("mcpHeaderDeclarations() survives cycles and deep schemas", () => {
  const cyclic: Record<string, unknown> = { type: "object" };
  cyclic.properties = { self: cyclic, a: str("A") };
  assertEquals(mcpHeaderDeclarations(cyclic), { ok: true, headers: [{ name: "A", path: ["a"] }] });
  let deep: Record<string, unknown> = str("Deep");
  for (let i = 0; i < 100_000; i++) deep = { not: deep };
  const result = mcpHeaderDeclarations(object({ a: deep }));
  assertEquals(result.ok, false);
});

const DECLARATIONS: McpHeaderDeclaration[] = [
  { name: "Region", path: ["region"] },
  { name: "Zone", path: ["loc", "zone"] },
  { name: "Dry", path: ["dry"] },
];

test("paramHeaders() reads and encodes the declared arguments", () => {
  const table: [string, unknown, Record<string, string>][] = [
    ["all present", { region: "us-west1", loc: { zone: 3 }, dry: false }, {
      "Mcp-Param-Region": "us-west1",
      "Mcp-Param-Zone": "3",
      "Mcp-Param-Dry": "false",
    }],
    ["non-ASCII", { region: "Zürich" }, { "Mcp-Param-Region": "=?base64?WsO8cmljaA==?=" }],
    ["negative integer and zero", { loc: { zone: -4 }, dry: 0 }, {
      "Mcp-Param-Zone": "-4",
      "Mcp-Param-Dry": "0",
    }],
    ["empty string", { region: "" }, { "Mcp-Param-Region": "" }],
    ["absent and null", { region: null, loc: {} }, {}],
    ["missing intermediate", { loc: null }, {}],
    ["intermediate not an object", { loc: "x" }, {}],
    ["inherited members are not arguments", Object.create({ region: "proto" }), {}],
    ["no arguments", undefined, {}],
  ];
  for (const [label, args, expected] of table) {
    assertEquals(paramHeaders(DECLARATIONS, args), expected, label);
  }
});

test("paramHeaders() rejects values that cannot be header values, without echoing them", () => {
  for (const value of [1.5, 2 ** 53, -(2 ** 53), NaN, Infinity, { secret: "s3cr3t" }, ["s3cr3t"]]) {
    const error = assertThrows(() => paramHeaders(DECLARATIONS, { region: value }));
    assertInstanceOf(error, McpError);
    assertEquals(error.kind, "validation");
    assertEquals(error.reason, "invalid_header_value");
    assert(!error.message.includes("s3cr3t"), error.message);
    assert(error.message.includes("Mcp-Param-Region"), error.message);
  }
});

test("filterToolsWithValidHeaders() drops only tools with invalid declarations", () => {
  const tools = [
    { name: "plain", inputSchema: object({ q: str() }) },
    { name: "headers", inputSchema: object({ region: str("Region") }) },
    { name: "number", inputSchema: object({ n: str("N", "number") }) },
    { name: "no-schema" },
    { name: "dup", inputSchema: object({ a: str("X"), b: str("x") }) },
  ];
  const { kept, dropped } = filterToolsWithValidHeaders(tools);
  assertEquals(kept.map((tool) => tool.name), ["plain", "headers", "no-schema"]);
  assertEquals(dropped.map((tool) => tool.name), ["number", "dup"]);
  assert(dropped.every((tool) => tool.reason.includes(X)));
  assertEquals(filterToolsWithValidHeaders([]), { kept: [], dropped: [] });
});

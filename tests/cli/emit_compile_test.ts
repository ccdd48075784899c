// The `emit-ts` compiler, in process: names from hostile tool names, doc comments from hostile
// text, every JSON Schema form it knows, recursion and cycles, its caps, and the module's
// determinism. (tests/cli/emit_test.ts type-checks what it writes with `deno check`.)
import { readFileSync } from "node:fs";
import { assert, assertEquals, assertStringIncludes, test } from "../_harness.ts";
import { camelName, NameBook, pascalName, propertyKey, tsString } from "../../cli/emit/_names.ts";
import {
  commentLine,
  commentText,
  docBlock,
  MAX_COMMENT_CHARS,
  MAX_COMMENT_LINES,
} from "../../cli/emit/_comment.ts";
import { MAX_DEPTH, SchemaCompiler } from "../../cli/emit/_schema.ts";
import { DEFAULT_IMPORT, emitModule } from "../../cli/emit/_module.ts";
import { BREAKOUT } from "../fixtures/emit_zoo.ts";

/** The package's version, as deno.json gives it. */
const PACKAGE_VERSION = (JSON.parse(
  readFileSync(new URL("../../deno.json", import.meta.url), "utf8"),
) as { version: string }).version;

/** The body of the root alias `schema` compiles to. */
function body(schema: unknown): string {
  const compiler = new SchemaCompiler(new NameBook());
  return compiler.compile(schema, "T").body;
}

/** Every alias `schema` compiles to, as `name = body`. */
function aliases(schema: unknown): string[] {
  const compiler = new SchemaCompiler(new NameBook());
  compiler.compile(schema, "T");
  return compiler.aliases.map((a) => `${a.name} = ${a.body}`);
}

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

test("emit names: camelCase, reserved words, digits, no letters, length", () => {
  assertEquals(
    [
      "get-sum",
      "get_sum",
      "GetSum",
      "HTTPServer_start",
      "delete",
      "await",
      "3d render",
      "\u{1F4A5}",
      "",
      "evil*/\u001b[2J\u202e",
      "constructor",
    ].map((n) => camelName(n)),
    [
      "getSum",
      "getSum",
      "getSum",
      "httpServerStart",
      "deleteTool",
      "awaitTool",
      "tool3dRender",
      "tool",
      "tool",
      "evil2J",
      "constructor",
    ],
  );
  assertEquals(pascalName("get-sum"), "GetSum");
  assertEquals(pascalName("array"), "ArrayTool");
  const long = camelName("word-".repeat(100));
  assert(long.length <= 60 && IDENTIFIER.test(long), long);
});

test("emit names: a name book de-duplicates, around names taken before", () => {
  const book = new NameBook(["structured"]);
  assertEquals(
    ["getSum", "getSum", "structured", "getSum2", "getSum"].map((n) => book.take(n)),
    ["getSum", "getSum2", "structured2", "getSum22", "getSum3"],
  );
});

test("emit names: string literals are ASCII, property keys quoted when not identifiers", () => {
  assertEquals(tsString('a"b\\c'), `'a"b\\\\c'`);
  assertEquals(tsString(`it's "x"`), `"it's \\"x\\""`);
  assertEquals(
    tsString("line\u2028sep\nnew\u001b\u202e"),
    '"line\\u2028sep\\u000anew\\u001b\\u202e"',
  );
  assertEquals(tsString("\ud800 lone"), '"\\ud800 lone"');
  assertEquals(tsString("\u{1F4A5}"), '"\\ud83d\\udca5"');
  // What a double-quoted literal says is the text itself.
  for (const text of ["a'b\\c\"d", "\u2028\u0000\ud800", "\u{1F4A5}"]) {
    assertEquals(JSON.parse(tsString(text)), text);
  }
  assertEquals(
    ["value", "_x", "$y", "a-b", "0", "with space", "constructor", '"'].map(propertyKey),
    ["value", "_x", "$y", '"a-b"', '"0"', '"with space"', "constructor", `'"'`],
  );
});

test("emit comments: no comment end, escapes, bidi or invisible characters survive", () => {
  const text = commentText(`one */ two\u001b[31m red\u009b1m\u202e rtl\u200b zw\r\nnext\u2028line`);
  assertEquals(text, "one *\\/ two red1m rtl zw\nnext\nline");
  assertEquals(commentText(42), "");
  assertEquals(commentText("\n\n  \n"), "");
  // A cut never leaves a `*` to meet the block's own end, nor half a surrogate pair.
  const starry = commentText("*".repeat(MAX_COMMENT_CHARS + 10));
  assert(!starry.includes("*/"), starry.slice(-10));
  const emoji = commentText("\u{1F4A5}".repeat(MAX_COMMENT_CHARS));
  assert(!/[\ud800-\udbff]($|[^\udc00-\udfff])/.test(emoji), "no lone high surrogate");
  assertEquals(commentLine("a\nb\n\nc"), "a b c");
});

test("emit comments: length and lines capped, a block ends only at its end", () => {
  const long = commentText("x".repeat(MAX_COMMENT_CHARS * 3));
  assertEquals(long.length, MAX_COMMENT_CHARS + 2);
  assert(long.endsWith(" …"));
  const lines = commentText(Array.from({ length: 100 }, (_, i) => `line ${i}`).join("\n"));
  assertEquals(lines.split("\n").length, MAX_COMMENT_LINES);
  const block = docBlock([commentText(BREAKOUT), commentText(`${"word ".repeat(40)}*/`)], "  ");
  assertEquals(block.indexOf("*/"), block.length - 3);
  assert(block.split("\n").every((line) => line.length <= 80), block);
  assertEquals(docBlock(["one line"]), "/** one line */\n");
  assertEquals(docBlock(["", ""]), "");
});

test("emit schema: primitives, enum and const, type arrays, nullable", () => {
  assertEquals(
    [
      { type: "string" },
      { type: "integer" },
      { type: "number" },
      { type: "boolean" },
      { type: "null" },
      { type: ["string", "null"] },
      { type: "number", nullable: true },
      { enum: ["a", 1, -2, true, null] },
      { enum: ["a", { no: 1 }] },
      { enum: [] },
      { const: "only" },
      { const: 'q"\u202e' },
      { type: "quaternion" },
      {},
      true,
      false,
      "not a schema",
      { type: "string", not: { const: "x" } },
    ].map(body),
    [
      "string",
      "number",
      "number",
      "boolean",
      "null",
      "string | null",
      "number | null",
      '"a" | 1 | -2 | true | null',
      "unknown",
      "never",
      '"only"',
      `'q"\\u202e'`,
      "unknown",
      "unknown",
      "unknown",
      "never",
      "unknown",
      "string",
    ],
  );
});

test("emit schema: objects, required and optional, additional and pattern properties", () => {
  assertEquals(
    body({
      type: "object",
      properties: { a: { type: "string", description: "The a" }, "b-c": { type: "number" } },
      required: ["a", "ghost"],
    }),
    '{\n  /** The a */\n  a: string;\n  "b-c"?: number;\n  ghost: unknown;\n}',
  );
  assertEquals(body({ type: "object" }), "{\n  [key: string]: unknown;\n}");
  assertEquals(
    body({ type: "object", additionalProperties: false }),
    "{\n  [key: string]: never;\n}",
  );
  assertEquals(
    body({ properties: { a: { type: "string" } }, additionalProperties: { type: "number" } }),
    "{\n  a?: string;\n  [key: string]: number | string | undefined;\n}",
  );
  assertEquals(
    body({ type: "object", patternProperties: { "^x": { type: "boolean" } } }),
    "{\n  [key: string]: boolean;\n}",
  );
  assertEquals(
    body({ type: "object", properties: { o: { type: "object", properties: { d: {} } } } }),
    "{\n  o?: {\n    d?: unknown;\n  };\n}",
  );
});

test("emit schema: arrays and tuples in both drafts", () => {
  assertEquals(
    [
      { type: "array", items: { type: "string" } },
      { type: "array" },
      { type: "array", items: { type: ["string", "number"] } },
      { type: "array", items: { enum: [-1] } },
      { prefixItems: [{ type: "string" }, { type: "number" }], items: false, minItems: 2 },
      { prefixItems: [{ type: "string" }], items: { type: "boolean" }, minItems: 1 },
      { type: "array", prefixItems: [{ type: "string" }] },
      { type: "array", items: [{ type: "string" }], additionalItems: false },
      { type: "array", items: [{ type: "string" }, { type: ["null", "number"] }], minItems: 1 },
    ].map(body),
    [
      "string[]",
      "unknown[]",
      "(string | number)[]",
      "(-1)[]",
      "[string, number]",
      "[string, ...boolean[]]",
      "[string?, ...unknown[]]",
      "[string?]",
      "[string, (null | number)?, ...unknown[]]",
    ],
  );
});

test("emit schema: anyOf and oneOf as unions, allOf as an intersection, mixed with a base", () => {
  assertEquals(
    body({ anyOf: [{ type: "string" }, { type: "number" }, { type: "string" }] }),
    "string | number",
  );
  assertEquals(body({ oneOf: [{ const: "a" }, { const: "b" }] }), '"a" | "b"');
  assertEquals(body({ anyOf: [{ type: "string" }, {}] }), "unknown");
  assertEquals(
    body({
      allOf: [{ type: "object", properties: { a: { type: "string" } } }, {
        anyOf: [{ type: "string" }, { type: "number" }],
      }],
    }),
    "{\n  a?: string;\n} & (string | number)",
  );
  assertEquals(
    body({ type: "string", anyOf: [{ const: "x" }, { const: "y" }] }),
    'string & ("x" | "y")',
  );
  // A union in a union is its members.
  assertEquals(
    body({ anyOf: [{ type: ["string", "null"] }, { enum: ["a", "b"] }, { type: "string" }] }),
    'string | null | "a" | "b"',
  );
  assertEquals(
    body({ type: "array", items: { anyOf: [{ anyOf: [{ type: "string" }] }] } }),
    "string[]",
  );
  // Past the line width, a union goes one member a line, as the formatter writes it.
  const regions = ["north-america", "south-america", "europe", "asia", "africa", "oceania"];
  assertEquals(
    body({ type: "object", properties: { region: { enum: regions } } }),
    `{\n  region?:\n${regions.map((r) => `    | "${r}"`).join("\n")};\n}`,
  );
  const wide = emitModule({
    tools: [{ name: "t", inputSchema: { type: "object" }, outputSchema: { enum: regions } }],
  });
  assertStringIncludes(
    wide.source,
    `export type TResult =\n${regions.map((r) => `  | "${r}"`).join("\n")};\n`,
  );
  assertEquals(body({ allOf: [{}, true] }), "unknown");
  assertEquals(body({ allOf: [{ type: "string" }, false] }), "never");
});

test("emit schema: $ref to $defs and definitions, recursion as named aliases", () => {
  assertEquals(
    aliases({
      $ref: "#/$defs/Node",
      $defs: {
        Node: {
          type: "object",
          description: "A node",
          properties: { children: { type: "array", items: { $ref: "#/$defs/Node" } } },
        },
      },
    }),
    [
      "T = {\n  children?: TNode[];\n}",
      "TNode = {\n  children?: TNode[];\n}",
    ],
  );
  assertEquals(
    aliases({
      type: "object",
      properties: { list: { $ref: "#/definitions/List" }, again: { $ref: "#/definitions/List" } },
      definitions: {
        List: {
          anyOf: [{ type: "null" }, {
            type: "object",
            properties: { tail: { $ref: "#/definitions/List" } },
          }],
        },
      },
    }),
    [
      "T = {\n  list?: TList;\n  again?: TList;\n}",
      "TList = null | {\n  tail?: TList;\n}",
    ],
  );
  // Pointers are decoded (~1 is "/", ~0 is "~", percent-escapes); a root reference is the root.
  assertEquals(
    aliases({
      properties: { a: { $ref: "#/$defs/a~1b%20c" }, self: { $ref: "#" } },
      $defs: { "a/b c": { type: "string" } },
    }),
    ["T = {\n  a?: TABC;\n  self?: T;\n}", "TABC = string"],
  );
});

test("emit schema: cycles no type can express, unknown references, and the caps are unknown", () => {
  assertEquals(
    aliases({
      properties: { self: { $ref: "#/$defs/Self" }, ping: { $ref: "#/$defs/Ping" } },
      $defs: {
        Self: { $ref: "#/$defs/Self" },
        Ping: { anyOf: [{ $ref: "#/$defs/Pong" }, { type: "string" }] },
        Pong: { anyOf: [{ $ref: "#/$defs/Ping" }, { type: "number" }] },
      },
    }),
    ["T = {\n  self?: TSelf;\n  ping?: TPing;\n}", "TSelf = unknown", "TPing = unknown"],
  );
  assertEquals(body({ $ref: "#" }), "unknown");
  assertEquals(body({ $ref: "https://example.com/s.json" }), "unknown");
  assertEquals(body({ $ref: "#/$defs/missing" }), "unknown");
  assertEquals(body({ $ref: 7 }), "unknown");
  let deep: unknown = { type: "string" };
  for (let i = 0; i < MAX_DEPTH * 3; i++) deep = { type: "array", items: deep };
  const nested = body(deep);
  assert(nested.startsWith("unknown") && nested.endsWith("[]"), nested.slice(0, 40));
  // A schema of more nodes than the budget compiles to a bounded text.
  const wide = { anyOf: Array.from({ length: 20_000 }, (_, i) => ({ const: `v${i}` })) };
  assertEquals(body(wide), "unknown");
  // Exponential sharing: each def uses the one below twice, at the top of an alias.
  const defs: Record<string, unknown> = { D0: { type: "string" } };
  for (let i = 1; i < 40; i++) {
    defs[`D${i}`] = { anyOf: [{ $ref: `#/$defs/D${i - 1}` }, { $ref: `#/$defs/D${i - 1}` }] };
  }
  const shared = body({ $ref: "#/$defs/D39", $defs: defs });
  assert(shared.length < 100_000, `${shared.length}`);
});

test("emit module: the default import is this package's version on, within its major", () => {
  assertEquals(DEFAULT_IMPORT, `jsr:@conduit/mcp@^${PACKAGE_VERSION}`);
});

test("emit module: hostile names become distinct safe functions, the wire keeps the real name", () => {
  const tools = [
    { name: "get-sum", inputSchema: { type: "object" } },
    { name: "get_sum", inputSchema: { type: "object" } },
    { name: "delete", inputSchema: { type: "object" } },
    { name: "structured", inputSchema: { type: "object" }, outputSchema: { type: "object" } },
    { name: `evil*/\u001b[2J\u202e`, description: BREAKOUT, inputSchema: { type: "object" } },
    { name: "get-sum", inputSchema: { type: "object" } },
    { name: 42, inputSchema: {} },
    "not a tool",
  ];
  const { source, functions, skipped } = emitModule({ tools, server: { name: BREAKOUT } });
  assertEquals(skipped, 3);
  assertEquals(
    functions.map((f) => [f.tool, f.function]),
    [
      ["delete", "deleteTool"],
      [`evil*/\u001b[2J\u202e`, "evil2J"],
      ["get-sum", "getSum"],
      ["get_sum", "getSum2"],
      ["structured", "structured2"],
    ],
  );
  for (const f of functions) assertStringIncludes(source, `client.callTool(${tsString(f.tool)},`);
  assert(!source.replace(/\/\*[\s\S]*?\*\//g, "").includes("pwned"), "no comment broken out of");
  // deno-lint-ignore no-control-regex -- finding controls is the point
  assert(!/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/.test(source));
  assertStringIncludes(source, `from "jsr:@conduit/mcp@^${PACKAGE_VERSION}";`);
});

test("emit module: the same text whatever order the tools come in; arguments optional only when they may be", () => {
  const tools = [
    {
      name: "b",
      inputSchema: { type: "object", properties: { x: { type: "string" } }, required: ["x"] },
    },
    { name: "a", inputSchema: { type: "object", properties: { y: { type: "number" } } } },
    {
      name: "c",
      inputSchema: { type: "string" },
      outputSchema: { type: "object", properties: { n: { type: "number" } } },
    },
    { name: "d", inputSchema: { allOf: [{ type: "object", required: ["k"] }] } },
  ];
  const one = emitModule({ tools, importFrom: "./mod.ts", server: { name: "s", version: "1" } });
  const two = emitModule({
    tools: [...tools].reverse(),
    importFrom: "./mod.ts",
    server: { name: "s", version: "1" },
  });
  assertEquals(one.source, two.source);
  assertStringIncludes(one.source, "Typed wrappers for the tools of s 1: 4 tools.");
  assertStringIncludes(
    one.source,
    'import type { McpClient, ToolCallOptions, ToolResult } from "./mod.ts";',
  );
  assertStringIncludes(one.source, "  args: AArgs = {},\n");
  assertStringIncludes(one.source, "  args: BArgs,\n");
  // Arguments are an object on the wire, whatever the schema says.
  assertStringIncludes(one.source, "export type CArgs = { [key: string]: unknown };");
  assertStringIncludes(one.source, "  args: CArgs = {},\n");
  assertStringIncludes(one.source, "): Promise<CResult> {");
  assertStringIncludes(one.source, '  return structured<CResult>("c", result);');
  assertStringIncludes(one.source, "  args: DArgs,\n");
  // No tools: a header and nothing to import.
  const none = emitModule({ tools: [], server: { name: "s" } }).source;
  assertStringIncludes(none, "Typed wrappers for the tools of s: 0 tools.");
  assert(!none.includes("import") && none.endsWith("\nexport {};\n"), none);
  // Without an output schema, no value import and no helper.
  const plain = emitModule({ tools: [tools[0]] }).source;
  assert(!plain.includes("McpError") && !plain.includes("function structured"), plain);
});

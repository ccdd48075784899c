// Issue 24, items 21–23: what the model adapters emit from a hostile server's tool list. A
// `$ref` bomb is bounded (references kept, strict mode off, said in `catalog`); every title
// and description, of the tool and inside its schema, reaches the model sanitised; and a safe
// name stays with its tool when the kit is rebuilt after the server lists a new tool.
import { anthropicTools } from "../../adapters/anthropic.ts";
import { openAiTools } from "../../adapters/openai.ts";
import type { ToolSource } from "../../adapters/types.ts";
import type { Tool } from "../../client/shapes.ts";
import { assert, assertEquals, test } from "../_harness.ts";

/** A source that lists `tools` (changeable) and records the names it is called with. */
function source(tools: Tool[]): ToolSource & { called: string[]; tools: Tool[] } {
  const called: string[] = [];
  const s = {
    tools,
    called,
    listAllTools: () => Promise.resolve(s.tools),
    callTool: (name: string) => {
      called.push(name);
      return Promise.resolve({ content: [{ type: "text", text: `ran ${name}` }] });
    },
  };
  return s;
}

/** Each level refers to the one below twice: 2^depth copies of the leaf when inlined. */
function refBomb(depth: number): Record<string, unknown> {
  const defs: Record<string, unknown> = { l0: { type: "string", description: "leaf" } };
  for (let i = 1; i <= depth; i++) {
    defs[`l${i}`] = {
      type: "object",
      properties: { a: { $ref: `#/$defs/l${i - 1}` }, b: { $ref: `#/$defs/l${i - 1}` } },
    };
  }
  return { type: "object", properties: { root: { $ref: `#/$defs/l${depth}` } }, $defs: defs };
}

test("item 21: a $ref bomb is not inlined past a bound; the tool keeps its references, not strict", async () => {
  const tools: Tool[] = [
    { name: "bomb", inputSchema: refBomb(30) as Tool["inputSchema"] },
    { name: "fine", inputSchema: { type: "object", properties: { x: { type: "string" } } } },
  ];
  const started = Date.now();
  const kit = await openAiTools(source(tools), { strict: true });
  assert(Date.now() - started < 5_000, "compiling took too long");
  const bomb = kit.tools.find((t) => t.type === "function" && t.function.name === "bomb");
  assert(bomb !== undefined && bomb.type === "function");
  assert(JSON.stringify(bomb.function.parameters).length < 100_000, "the schema was inlined");
  assertEquals(bomb.function.strict, false);
  const entry = kit.catalog.find((c) => c.name === "bomb")!;
  assert(entry.notes.some((n) => n.includes("too large")), entry.notes.join("; "));
  assertEquals(kit.catalog.find((c) => c.name === "fine")!.strict, true);
});

const HIDDEN = "\u{E0069}\u{E0067}\u{E006E}\u200B\u202E";

test("item 22: titles and descriptions of a tool and its schema reach the model sanitised", async () => {
  const tools: Tool[] = [
    {
      name: "t1",
      description: `Looks up${HIDDEN} things`,
      inputSchema: {
        type: "object",
        title: `Args${HIDDEN}`,
        properties: {
          q: { type: "string", description: `The query${HIDDEN}`, title: `Q${HIDDEN}` },
          o: { $ref: "#/$defs/o" },
        },
        $defs: { o: { type: "object", description: `nested${HIDDEN}`, properties: {} } },
      } as Tool["inputSchema"],
    },
    { name: "t2", title: `Only a title${HIDDEN}`, inputSchema: { type: "object" } },
  ];
  for (const strict of [false, true]) {
    const openai = JSON.stringify((await openAiTools(source(tools), { strict })).tools);
    const anthropic = JSON.stringify((await anthropicTools(source(tools), { strict })).tools);
    for (const text of [openai, anthropic]) {
      for (const ch of ["\u{E0069}", "\u200B", "\u202E"]) {
        assert(!text.includes(ch), `hidden character ${escape(ch)} in ${text}`);
      }
      assert(text.includes("Looks up things") && text.includes("Only a title"), text);
      assert(text.includes("The query") && text.includes("nested"), text);
    }
  }
});

test("item 22: a tool hiding characters in a name or value the model sends back is left out", async () => {
  const tag = "\u{E0069}\u{E0067}";
  const tools: Tool[] = [
    {
      name: "by_name",
      inputSchema: { type: "object", properties: { [`path${tag}`]: { type: "string" } } },
    },
    {
      name: "by_enum",
      inputSchema: {
        type: "object",
        properties: { mode: { type: "string", enum: ["read", "wri\u200Bte"] } },
      },
    },
    {
      name: "nested_const",
      inputSchema: {
        type: "object",
        properties: { o: { type: "object", properties: { k: { const: `x\u202E${tag}` } } } },
      },
    },
    {
      name: "fine",
      inputSchema: {
        type: "object",
        properties: { café: { type: "string", enum: ["cafe\u0301", "line\r\nend"] } },
      },
    },
  ];
  const src = source(tools);
  for (const strict of [false, true]) {
    const kit = await openAiTools(src, { strict });
    const emitted = JSON.stringify(kit.tools);
    assert(!emitted.includes("\u{E0069}") && !emitted.includes("\u200B"), emitted);
    assertEquals(kit.tools.length, 1, emitted);
    const left = kit.catalog.filter((c) => c.leftOut !== undefined).map((c) => c.tool.name);
    assertEquals(left, ["by_name", "by_enum", "nested_const"]);
    assert(kit.catalog[2].leftOut!.includes("/properties/o/properties/k/const"), "where");
    assert(!kit.catalog[0].leftOut!.includes("\u{E0069}"), "the note hides nothing either");
    const refused = await kit.call("by_name", "{}").then(() => undefined, (e) => e);
    assertEquals(refused?.reason, "unknown_tool");
  }
  const anthropic = await anthropicTools(src);
  assertEquals(anthropic.tools.map((t) => t.name), ["fine"]);
  assertEquals(src.called, []);
});

test("item 23: a safe name stays with its tool when the server lists a new tool", async () => {
  const src = source([{ name: "a.b", inputSchema: { type: "object" } }]);
  const first = await openAiTools(src);
  const safe = first.catalog[0].name;
  assertEquals(first.originalName(safe), "a.b");
  // A new tool whose name sanitises to the same safe name, and one that fits as it is.
  src.tools = [
    { name: "a b", inputSchema: { type: "object" } },
    { name: "a.b", inputSchema: { type: "object" } },
  ];
  const second = await openAiTools(src);
  assertEquals(second.originalName(safe), "a.b");
  await second.call(safe, "{}");
  assertEquals(src.called, ["a.b"]);
  const names = second.catalog.map((c) => c.name);
  assertEquals(new Set(names).size, 2);
});

// Typed content blocks: this file is also the type-check probe (`deno check tests/all.ts`
// checks it): it reads a tool's text block as a `string` without a cast.
import {
  type ContentBlock,
  createClient,
  isContent,
  isMcpError,
  resultText,
  type TextContent,
  type ToolResult,
} from "../../mod.ts";
import { mockServer } from "../../testing/mod.ts";
import { assert, assertEquals, test } from "../_harness.ts";

const blocks: ContentBlock[] = [
  { type: "text", text: "first" },
  { type: "image", data: "aGk=", mimeType: "image/png" },
  { type: "resource_link", uri: "file:///a.txt", name: "a.txt" },
  { type: "resource", resource: { uri: "file:///b.txt", text: "bee" } },
  { type: "audio", data: "aGk=", mimeType: "audio/wav" },
  { type: "text", text: "second" },
];

function server(content: unknown[]) {
  return mockServer({ tools: [{ name: "show", handler: () => ({ content }) }] });
}

test("content: a text block reads as a string without a cast, and resultText joins them", async () => {
  await using client = createClient({ transport: server(blocks).transport() });
  const result: ToolResult = await client.callTool("show", {});
  const first = result.content.find((block) => isContent(block, "text"));
  const text: string | undefined = first?.text; // typed: no cast
  assertEquals(text, "first");
  const texts: string[] = result.content.filter((block) => isContent(block, "text"))
    .map((block: TextContent) => block.text);
  assertEquals(texts, ["first", "second"]);
  assertEquals(resultText(result), "first\nsecond");
  assertEquals(resultText(result, " | "), "first | second");
  const link = result.content.find((block) => isContent(block, "resource_link"));
  const uri: string | undefined = link?.uri;
  assertEquals(uri, "file:///a.txt");
  const image = result.content.find((block) => isContent(block, "image"));
  const mime: string | undefined = image?.mimeType;
  assertEquals(mime, "image/png");
  const embedded = result.content.find((block) => isContent(block, "resource"));
  assertEquals(embedded?.resource.text, "bee");
  assertEquals(result.content.filter((block) => isContent(block, "audio")).length, 1);
});

test("content: a block of an unknown type is handed over as sent (the open fallback)", async () => {
  await using client = createClient({
    transport: server([{ type: "chart", points: [1, 2] }, { type: "text", text: "ok" }])
      .transport(),
  });
  const result = await client.callTool("show", {});
  assertEquals(result.content[0], { type: "chart", points: [1, 2] });
  assertEquals(isContent(result.content[0], "text"), false);
  assertEquals(resultText(result), "ok");
  assertEquals(resultText({ content: [] }), "");
});

test("content: a known block without its required members fails the call as invalid", async () => {
  for (
    const [content, what] of [
      [[{ type: "text", text: 3 }], "content[0] (text) has no string text"],
      [
        [{ type: "text", text: "a" }, { type: "image", data: "x" }],
        "content[1] (image) has no string mimeType",
      ],
      [[{ type: "resource_link", uri: "u" }], "(resource_link) has no string name"],
      [[{ type: "resource" }], "(resource) has no resource with a string uri"],
      [[null], "content[0] is not an object"],
      [[{ kind: "text" }], "content[0] has no string type"],
    ] as const
  ) {
    await using client = createClient({ transport: server([...content]).transport() });
    const error = await client.callTool("show", {}).then(() => undefined, (e) => e);
    assert(isMcpError(error), `an McpError for ${JSON.stringify(content)}`);
    assertEquals(error.reason, "invalid_result");
    assert(error.message.includes(what), error.message);
  }
});

// shape: "llm" against the real @modelcontextprotocol/server-everything over stdio: its image
// tool (an image between two texts), its structured tool (the same data as text and as
// structuredContent: once), its resource links and an embedded resource (references).
import { connect, type ToolResult } from "../../mod.ts";
import { assert, assertEquals, test } from "../_harness.ts";

const everything = new URL(
  "../../node_modules/@modelcontextprotocol/server-everything/dist/index.js",
  import.meta.url,
).pathname;

function kib(base64: unknown): string {
  return `${(atob(String(base64)).length / 1024).toFixed(1)} KiB`;
}

test(
  "server-everything over stdio: shape: llm on image, structured and resource results",
  async () => {
    await using client = await connect({
      command: "node",
      args: [everything, "stdio"],
      closeGracePeriod: 1_000,
      terminateGracePeriod: 1_000,
    }, { requestTimeout: 30_000, reconnect: false });

    const image: ToolResult = await client.callTool("get-tiny-image", {});
    const imageShaped = await client.callTool("get-tiny-image", {}, { shape: "llm" });
    assertEquals(
      imageShaped.text,
      [
        "Here's the image you requested:",
        `[image: image/png, ${kib(image.content[1].data)}]`,
        "The image above is the MCP logo.",
      ].join("\n"),
    );
    assertEquals([imageShaped.isError, imageShaped.cutChars], [false, 0]);
    assert(
      imageShaped.approxTokens < 40,
      `an image costs a reference: ${imageShaped.approxTokens}`,
    );

    const weather = await client.callTool("get-structured-content", { location: "Chicago" }, {
      shape: "llm",
    });
    assertEquals(
      weather.text,
      '{"temperature":36,"conditions":"Light rain / drizzle","humidity":82}',
    );

    const links: ToolResult = await client.callTool("get-resource-links", { count: 2 });
    const linksShaped = await client.callTool("get-resource-links", { count: 2 }, { shape: "llm" });
    assertEquals(
      linksShaped.text,
      [
        "Here are 2 resource links to resources available in this server:",
        ...links.content.slice(1).map((block) =>
          `[resource link: "${block.name}" ${block.uri}, ${block.mimeType}]`
        ),
      ].join("\n"),
    );

    const reference = await client.callTool("get-resource-reference", { resourceId: 2 }, {
      shape: "llm",
      maxChars: 200,
    });
    const lines = reference.text.split("\n");
    assertEquals(lines[0], "Returning resource reference for Resource 2:");
    assert(/^\[resource: demo:\/\/\S+, text\/plain, \d+ bytes text\]$/.test(lines[1]), lines[1]);
    assert(lines[2].startsWith("You can access this resource using the URI: "), lines[2]);
  },
  { timeout: 60_000 },
);

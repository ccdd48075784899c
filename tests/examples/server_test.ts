import { connect } from "../../mod.ts";
import { isMcpError } from "../../protocol/errors.ts";
import { assert, assertEquals, assertStringIncludes, scriptCommand, test } from "../_harness.ts";

const server = scriptCommand(new URL("../../examples/server.ts", import.meta.url));
const quiet = { command: server.command, args: [...server.args, "--quiet"] };

for (
  const [protocol, era, version] of [
    ["auto", "modern", "2026-07-28"],
    ["legacy", "legacy", "2025-11-25"],
    ["2025-06-18", "legacy", "2025-06-18"],
  ] as const
) {
  test(`the example server speaks ${era} ${version} when the client asks for "${protocol}"`, async () => {
    await using client = await connect(quiet, { protocol });
    const info = client.serverInfo();
    assertEquals([info.era, info.version], [era, version]);
    const tools = await client.listAllTools();
    assertEquals(tools.map((tool) => tool.name).sort(), [
      "convert_units",
      "hash",
      "roll_dice",
      "word_count",
    ]);
    assert(
      tools.every((tool) => tool.outputSchema !== undefined),
      "every tool has an outputSchema",
    );

    const dice = await client.callTool("roll_dice", { dice: "3d6+2", seed: 42 });
    assertEquals(dice.structuredContent, { dice: "3d6+2", rolls: [4, 3, 6], total: 15, seed: 42 });
    const hash = await client.callTool("hash", { text: "hello" });
    assertEquals(
      (hash.structuredContent as { hex: string }).hex,
      "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824",
    );
    const heat = await client.callTool("convert_units", {
      value: 100,
      from: "celsius",
      to: "fahrenheit",
    });
    assertEquals((heat.structuredContent as { result: number }).result, 212);
    const mixed = await client.callTool("convert_units", { value: 1, from: "mi", to: "celsius" });
    assertEquals(mixed.isError, true);

    const [resource] = await client.listAllResources();
    const read = await client.readResource(resource.uri);
    assertStringIncludes(String(read.contents[0].text), "celsius");
    try {
      await client.callTool("no_such_tool", {});
      throw new Error("expected a server error");
    } catch (error) {
      assert(isMcpError(error) && error.kind === "server" && error.code === -32602, String(error));
    }
  });
}

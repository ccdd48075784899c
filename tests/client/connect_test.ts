import { connect } from "../../mod.ts";
import { connect as connectEdge } from "../../http.ts";
import {
  assert,
  assertEquals,
  assertRejects,
  assertThrows,
  scriptCommand,
  test,
} from "../_harness.ts";

const fixture = scriptCommand(new URL("../fixtures/stdio_server.ts", import.meta.url));

test("connect() refuses targets that are neither a URL, a command nor a transport", () => {
  for (const target of [42, null, {}, { command: 1 }, "ftp://example.test/mcp", "not a url"]) {
    assertThrows(() => connect(target as never), TypeError, "Cannot connect");
  }
});

test("the edge connect() refuses a command target", () => {
  assertThrows(() => connectEdge({ command: "node" } as never), TypeError, "URL or a transport");
});

test("connect() with a command speaks stdio and negotiates the modern era", async () => {
  await using client = await connect({
    ...fixture,
    env: { FIXTURE_KNOBS: JSON.stringify({ mode: "dual" }) },
  });
  assertEquals(client.era(), "modern");
  const { tools } = await client.listTools();
  assert(tools.some((tool) => tool.name === "echo"), "the fixture lists echo");
});

test("connect() rejects and cleans up when the command cannot start", async () => {
  await assertRejects(
    () => connect({ command: "conduit-no-such-command-xyz" }, { reconnect: false }),
  );
});

// Pinned fields (issue 24, item 3): a pin covers every field the client or a model acts on,
// `execution` (task support) and `_meta` as well as the name, title, description, schemas
// and annotations.
import { diffDefinitions, fingerprint, pinnedPart } from "../../governance/pin.ts";
import { assertEquals, assertNotEquals, test } from "../_harness.ts";
import { mcpError } from "../client/_helpers.ts";
import { calls, governed, server } from "../governance/_helpers.ts";

test("item 3: a changed execution.taskSupport or _meta changes the fingerprint and is diffed", async () => {
  const base = {
    name: "t",
    inputSchema: { type: "object" },
    execution: { taskSupport: "forbidden" },
  };
  const print = await fingerprint(base);
  assertNotEquals(await fingerprint({ ...base, execution: { taskSupport: "required" } }), print);
  assertNotEquals(await fingerprint({ ...base, _meta: { "ui/resourceUri": "ui://x" } }), print);
  assertEquals(
    diffDefinitions(
      pinnedPart(base),
      pinnedPart({ ...base, execution: { taskSupport: "required" }, _meta: { a: 1 } }),
    )
      .map((e) => [e.field, e.path, e.change]),
    [["execution", "/taskSupport", "changed"], ["_meta", "", "added"]],
  );
});

test("item 3: a server that turns on task support after pinning has the tool held", async () => {
  // Task support shows in a 2025-11-25 listing as `execution.taskSupport`.
  const mock = server({ eras: "legacy", versions: ["2025-11-25"] });
  await using client = governed(mock, { pin: true });
  assertEquals((await client.listAllTools()).length, 4);
  mock.definition.tools![0].task = "required";
  const shown = (await client.listAllTools({ refresh: true })).map((tool) => tool.name);
  assertEquals(shown, ["rm", "add", "admin_reset"], "echo is held");
  assertEquals((await mcpError(client.callTool("echo", { message: "hi" }))).reason, "tool_changed");
  assertEquals(calls(mock), 0);
});

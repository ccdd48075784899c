import { assert, assertEquals, test } from "../_harness.ts";
import { isMcpError, MCP_ERROR_KINDS, McpError } from "../../protocol/errors.ts";

test("McpError carries kind, reason, code, data and cause", () => {
  const cause = new Error("root");
  const error = new McpError("Server refused", {
    kind: "server",
    reason: "rejected",
    code: -32602,
    data: { uri: "x" },
    cause,
  });
  assertEquals(error.name, "McpError");
  assertEquals(
    [error.kind, error.reason, error.code, error.data, error.cause],
    ["server", "rejected", -32602, { uri: "x" }, cause],
  );
  assert(error instanceof Error);
});

test("isMcpError recognises copies from another package instance by name and kind", () => {
  for (const kind of MCP_ERROR_KINDS) {
    const foreign = Object.assign(new Error("x"), { name: "McpError", kind });
    assert(isMcpError(foreign), kind);
  }
  assertEquals(
    isMcpError(Object.assign(new Error("x"), { name: "McpError", kind: "bogus" })),
    false,
  );
  assertEquals(isMcpError({ name: "McpError", kind: "closed" }), false);
  assertEquals(isMcpError(null), false);
});

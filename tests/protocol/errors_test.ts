import { assert, assertEquals, test } from "../_harness.ts";
import { isMcpError, MCP_ERROR_KINDS, McpError, serverErrorReason } from "../../protocol/errors.ts";

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

test("serverErrorReason: a stable reason for every JSON-RPC error code", () => {
  const table: [unknown, string][] = [
    [-32700, "parse_error"],
    [-32600, "invalid_request"],
    [-32601, "method_not_found"],
    [-32602, "invalid_params"],
    [-32603, "internal_error"],
    [-32002, "resource_not_found"],
    [-32020, "header_mismatch"],
    [-32021, "missing_required_client_capability"],
    [-32022, "unsupported_protocol_version"],
    [-32042, "url_elicitation_required"],
    // Implementation codes carry no meaning; anything else is a plain server error.
    [-32000, "server_error"],
    [-32001, "server_error"],
    [1, "server_error"],
    ["-32601", "server_error"],
    [undefined, "server_error"],
  ];
  for (const [code, reason] of table) assertEquals(serverErrorReason(code), reason, String(code));
  for (const [, reason] of table) assert(/^[a-z]+(_[a-z]+)*$/.test(reason), reason);
});

import { assert, assertEquals, assertThrows, test } from "../_harness.ts";
import { nameMemo } from "../../protocol/name_memo.ts";
import {
  decodeHeaderValue,
  encodeHeaderValue,
  MCP_HEADERS,
  modernHeaders,
  type ModernHeadersOptions,
} from "../../protocol/headers.ts";
import type { JsonRpcNotification, JsonRpcRequest } from "../../protocol/jsonrpc.ts";

test("encodeHeaderValue() keeps plain ASCII and base64-encodes the rest", () => {
  const table: [string | number | boolean, string][] = [
    ["us-west1", "us-west1"],
    ["tools/call", "tools/call"],
    ["a b", "a b"],
    ["a\tb", "a\tb"],
    ["!~#$%&'*+-.^_`|", "!~#$%&'*+-.^_`|"],
    ["", ""],
    ["Hello, 世界", "=?base64?SGVsbG8sIOS4lueVjA==?="],
    ["café", "=?base64?Y2Fmw6k=?="],
    ["😀", "=?base64?8J+YgA==?="],
    [" lead", "=?base64?IGxlYWQ=?="],
    ["trail ", "=?base64?dHJhaWwg?="],
    ["tab\t", "=?base64?dGFiCQ==?="],
    ["line\nbreak", "=?base64?bGluZQpicmVhaw==?="],
    ["\u0000x", "=?base64?AHg=?="],
    ["\u007f", "=?base64?fw==?="],
    ["=?base64?abc?=", "=?base64?PT9iYXNlNjQ/YWJjPz0=?="],
    ["=?BASE64?abc?=", "=?BASE64?abc?="],
    ["=?base64?x", "=?base64?x"],
    [0, "0"],
    [42, "42"],
    [-7, "-7"],
    [-0, "0"],
    [Number.MAX_SAFE_INTEGER, "9007199254740991"],
    [Number.MIN_SAFE_INTEGER, "-9007199254740991"],
    [true, "true"],
    [false, "false"],
  ];
  for (const [input, expected] of table) {
    assertEquals(encodeHeaderValue(input), expected, JSON.stringify(input));
  }
});

test("encodeHeaderValue() refuses numbers that are not safe integers", () => {
  for (const value of [1.5, NaN, Infinity, -Infinity, 2 ** 53, -(2 ** 53)]) {
    assertThrows(() => encodeHeaderValue(value), RangeError);
  }
  assertThrows(() => encodeHeaderValue({} as unknown as string), TypeError);
});

test("decodeHeaderValue() reverses the encoding and reports bad base64", () => {
  const table: [string, string | undefined][] = [
    ["=?base64?SGVsbG8sIOS4lueVjA==?=", "Hello, 世界"],
    ["=?base64??=", ""],
    ["plain", "plain"],
    ["=?BASE64?SGk=?=", "=?BASE64?SGk=?="],
    ["=?base64?SGk?=", undefined],
    ["=?base64?S*k=?=", undefined],
    ["=?base64?/w==?=", undefined],
  ];
  for (const [input, expected] of table) assertEquals(decodeHeaderValue(input), expected, input);
});

const META = { "io.modelcontextprotocol/protocolVersion": "2026-07-28" };
const request = (method: string, params?: Record<string, unknown>): JsonRpcRequest => ({
  jsonrpc: "2.0",
  id: 1,
  method,
  ...(params ? { params } : {}),
});

test("modernHeaders() mirrors the version, method and name", () => {
  const table: [
    string,
    JsonRpcRequest | JsonRpcNotification,
    ModernHeadersOptions,
    Record<string, string>,
  ][] = [
    ["tools/call", request("tools/call", { name: "echo", arguments: {}, _meta: META }), {}, {
      "MCP-Protocol-Version": "2026-07-28",
      "Mcp-Method": "tools/call",
      "Mcp-Name": "echo",
    }],
    ["prompts/get", request("prompts/get", { name: "greet", _meta: META }), {}, {
      "MCP-Protocol-Version": "2026-07-28",
      "Mcp-Method": "prompts/get",
      "Mcp-Name": "greet",
    }],
    [
      "resources/read, non-ASCII URI",
      request("resources/read", { uri: "file:///ü.txt", _meta: META }),
      {},
      {
        "MCP-Protocol-Version": "2026-07-28",
        "Mcp-Method": "resources/read",
        "Mcp-Name": "=?base64?ZmlsZTovLy/DvC50eHQ=?=",
      },
    ],
    [
      "resources/read ignores name",
      request("resources/read", { name: "n", uri: "a://b", _meta: META }),
      {},
      {
        "MCP-Protocol-Version": "2026-07-28",
        "Mcp-Method": "resources/read",
        "Mcp-Name": "a://b",
      },
    ],
    ["tasks/get", request("tasks/get", { taskId: "t-1", _meta: META }), {}, {
      "MCP-Protocol-Version": "2026-07-28",
      "Mcp-Method": "tasks/get",
      "Mcp-Name": "t-1",
    }],
    ["tasks/update", request("tasks/update", { taskId: "t-2", _meta: META }), {}, {
      "MCP-Protocol-Version": "2026-07-28",
      "Mcp-Method": "tasks/update",
      "Mcp-Name": "t-2",
    }],
    ["tasks/cancel", request("tasks/cancel", { taskId: "t-3", _meta: META }), {}, {
      "MCP-Protocol-Version": "2026-07-28",
      "Mcp-Method": "tasks/cancel",
      "Mcp-Name": "t-3",
    }],
    ["tools/list has no name", request("tools/list", { name: "x", _meta: META }), {}, {
      "MCP-Protocol-Version": "2026-07-28",
      "Mcp-Method": "tools/list",
    }],
    ["a non-string name is left out", request("tools/call", { name: 5, _meta: META }), {}, {
      "MCP-Protocol-Version": "2026-07-28",
      "Mcp-Method": "tools/call",
    }],
    ["no params", request("server/discover"), {}, { "Mcp-Method": "server/discover" }],
    ["a method named like an Object member", request("constructor", { _meta: META }), {}, {
      "MCP-Protocol-Version": "2026-07-28",
      "Mcp-Method": "constructor",
    }],
    [
      "a notification",
      { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 1 } },
      {},
      { "Mcp-Method": "notifications/cancelled" },
    ],
    [
      "param headers are added",
      request("tools/call", { name: "sql", arguments: { region: "eu" }, _meta: META }),
      { paramHeaders: { "Mcp-Param-Region": "eu" } },
      {
        "MCP-Protocol-Version": "2026-07-28",
        "Mcp-Method": "tools/call",
        "Mcp-Name": "sql",
        "Mcp-Param-Region": "eu",
      },
    ],
  ];
  for (const [label, message, opts, expected] of table) {
    assertEquals(modernHeaders(message, opts), expected, label);
  }
});

test("MCP_HEADERS names the mirrored headers", () => {
  assertEquals({ ...MCP_HEADERS }, {
    protocolVersion: "MCP-Protocol-Version",
    method: "Mcp-Method",
    name: "Mcp-Name",
    paramPrefix: "Mcp-Param-",
  });
});

test("nameMemo: answers as the function does, and keeps at most its bound of names", () => {
  let computed = 0;
  const lower = nameMemo((name) => {
    computed++;
    return name.toLowerCase();
  }, 4);
  assertEquals(lower("Mcp-Name"), "mcp-name");
  assertEquals(lower("Mcp-Name"), "mcp-name");
  assertEquals(computed, 1, "a name seen is not computed again");
  for (let i = 0; i < 100; i++) assertEquals(lower(`Name-${i}`), `name-${i}`);
  assert(lower.size() <= 4, `size ${lower.size()}`);
});

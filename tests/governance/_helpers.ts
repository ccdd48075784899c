// Shared by the governance tests: a mock server with tools of each kind, and a governed
// client over it.
import { createClient } from "../../client/client.ts";
import type { ClientOptions, McpClient } from "../../client/types.ts";
import { type MockServer, mockServer } from "../../testing/mod.ts";
import type { MockDefinition, MockTool } from "../../testing/types.ts";
import { FAST } from "../client/_helpers.ts";

/** The tools: a read-only echo, a destructive remover, a typed adder with an output schema. */
export function tools(): MockTool[] {
  return [
    {
      name: "echo",
      description: "Echoes the message",
      inputSchema: {
        type: "object",
        properties: { message: { type: "string" } },
        required: ["message"],
      },
      annotations: { readOnlyHint: true },
      handler: (args) => String(args.message),
    },
    {
      name: "rm",
      description: "Removes a file",
      inputSchema: { type: "object", properties: { path: { type: "string" } } },
      annotations: { destructiveHint: true },
      handler: (args) => `removed ${args.path}`,
    },
    {
      name: "add",
      description: "Adds two numbers",
      inputSchema: {
        type: "object",
        properties: { a: { type: "number" }, b: { type: "number", minimum: 0 } },
        required: ["a", "b"],
        additionalProperties: false,
      },
      outputSchema: {
        type: "object",
        properties: { sum: { type: "number" } },
        required: ["sum"],
      },
      annotations: { readOnlyHint: true },
      handler: (args) => ({ sum: Number(args.a) + Number(args.b) }),
    },
    {
      name: "admin_reset",
      inputSchema: { type: "object" },
      handler: () => "reset",
    },
  ];
}

/** A mock server with {@linkcode tools}, a prompt and two resources. */
export function server(extra: Partial<MockDefinition> = {}): MockServer {
  return mockServer({
    serverInfo: { name: "files", version: "1.0.0" },
    tools: tools(),
    prompts: [{
      name: "greet",
      arguments: [{ name: "who" }],
      handler: (args) => ({
        messages: [{ role: "user", content: { type: "text", text: `Hello ${args.who}` } }],
      }),
    }],
    resources: [
      { uri: "file:///etc/passwd", text: "root:x" },
      { uri: "file:///home/notes", text: "notes" },
    ],
    ...extra,
  });
}

/** A client of `mock`, governed by `options`. */
export function governed(
  mock: MockServer,
  options: Omit<ClientOptions, "transport">,
): McpClient {
  return createClient({ transport: mock.transport(), reconnect: FAST, ...options });
}

/** How many `tools/call` requests the server got. */
export function calls(mock: MockServer): number {
  return mock.requests.filter((r) => r.method === "tools/call").length;
}

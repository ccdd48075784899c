// What an edge worker ships to connect the official client over HTTP and call one tool:
// the entry `bench/startup.ts` bundles beside ours (`bun build --minify --splitting`).
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";

const client = new Client({ name: "bundle", version: "1.0.0" });
await client.connect(new StreamableHTTPClientTransport(new URL("http://127.0.0.1:1/mcp")));
console.log(await client.callTool({ name: "echo", arguments: { message: "hi" } }));

/**
 * The demo `npm start` runs: it starts the example server (`examples/server.ts`) over stdio
 * with the runtime it runs in, lets the client negotiate the protocol era, lists the tools
 * and calls a few; then it connects once more in the legacy era.
 *
 * ```sh
 * deno run --no-prompt --allow-run examples/demo.ts      # or: bun examples/demo.ts
 * ```
 *
 * @module
 */

import { connect, type McpClient, type ToolResult } from "../mod.ts";

const g = globalThis as unknown as {
  Deno?: { execPath(): string; version: { deno: string } };
  Bun?: { version: string };
  process?: { execPath: string };
};

/** Starts `server.ts` with this very runtime: `deno run server.ts` or `bun server.ts`. */
const script = `${import.meta.dirname}/server.ts`;
const server = g.Deno
  ? { command: g.Deno.execPath(), args: ["run", script] }
  : { command: g.process!.execPath, args: [script] };
const runtime = g.Deno ? `Deno ${g.Deno.version.deno}` : `Bun ${g.Bun?.version}`;

/** One line for a tool result: its structured content, or the error text. */
function show(result: ToolResult): string {
  if (result.isError) return `tool error: ${result.content.map((c) => c.text).join(" ")}`;
  return JSON.stringify(result.structuredContent);
}

async function call(client: McpClient, name: string, args: Record<string, unknown>) {
  const result = await client.callTool(name, args);
  console.log(`  ${name}(${JSON.stringify(args)})\n    → ${show(result)}`);
}

function describe(client: McpClient, ms: number): void {
  const { era, version, serverInfo } = client.serverInfo();
  const name = serverInfo ? `${serverInfo.title ?? serverInfo.name} ${serverInfo.version}` : "?";
  console.log(`  connected in ${ms.toFixed(0)} ms: ${era} era, version ${version}, ${name}`);
}

console.log(`@conduit/mcp demo on ${runtime}; the server is examples/server.ts over stdio\n`);

{
  console.log(`1. protocol "auto" (the default: probe server/discover, fall back to initialize)`);
  const start = performance.now();
  await using client = await connect(server);
  describe(client, performance.now() - start);

  const tools = await client.listAllTools();
  console.log(`  ${tools.length} tools:`);
  const width = Math.max(...tools.map((tool) => tool.name.length));
  for (const tool of tools) console.log(`    ${tool.name.padEnd(width)}  ${tool.description}`);

  await call(client, "word_count", { text: "The quick brown fox\njumps over the lazy dog" });
  await call(client, "roll_dice", { dice: "3d6+2", seed: 42 });
  await call(client, "hash", { text: "hello" });
}

{
  console.log(`\n2. protocol "legacy" (the initialize handshake of 2025-11-25 and 2025-06-18)`);
  const start = performance.now();
  await using client = await connect(server, { protocol: "legacy" });
  describe(client, performance.now() - start);

  await call(client, "convert_units", { value: 100, from: "celsius", to: "fahrenheit" });
  await call(client, "convert_units", { value: 1, from: "mi", to: "celsius" });
  const [resource] = await client.listAllResources();
  const { contents } = await client.readResource(resource.uri);
  console.log(`  readResource("${resource.uri}")\n    → ${contents[0].text}`);
}

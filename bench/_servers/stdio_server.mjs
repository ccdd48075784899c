// A minimal MCP server over stdio (newline-delimited JSON) that answers at once: legacy
// `initialize`, modern `server/discover`, `tools/list`, `tools/call` of `echo`, `ping`.
// Runs under Deno (`deno run bench/_servers/stdio_server.mjs`), Bun and Node, using each
// runtime's own stdin/stdout so the server costs as little as possible. All answers to one
// chunk of input go out in one write. It exits when stdin ends.
import { answer } from "./_mcp.mjs";

const encoder = new TextEncoder();
const decoder = new TextDecoder();
let pending = "";

/** Turns one chunk of input into the text to write back ("" when nothing to say). */
function handle(text) {
  pending += text;
  let out = "";
  let start = 0;
  for (;;) {
    const end = pending.indexOf("\n", start);
    if (end < 0) break;
    const line = pending.slice(start, end).trim();
    start = end + 1;
    if (line === "") continue;
    let message;
    try {
      message = JSON.parse(line);
    } catch {
      out += JSON.stringify({
        jsonrpc: "2.0",
        id: null,
        error: { code: -32700, message: "Parse error" },
      }) + "\n";
      continue;
    }
    const response = answer(message);
    if (response !== undefined) out += JSON.stringify(response) + "\n";
  }
  pending = start === 0 ? pending : pending.slice(start);
  return out;
}

if (typeof Deno !== "undefined") {
  const writeAll = async (bytes) => {
    let offset = 0;
    while (offset < bytes.length) offset += await Deno.stdout.write(bytes.subarray(offset));
  };
  const buffer = new Uint8Array(65536);
  for (;;) {
    const n = await Deno.stdin.read(buffer);
    if (n === null) break;
    const out = handle(decoder.decode(buffer.subarray(0, n), { stream: true }));
    if (out !== "") await writeAll(encoder.encode(out));
  }
  Deno.exit(0);
} else if (typeof Bun !== "undefined") {
  const writer = Bun.stdout.writer();
  for await (const chunk of Bun.stdin.stream()) {
    const out = handle(decoder.decode(chunk, { stream: true }));
    if (out !== "") {
      writer.write(out);
      writer.flush();
    }
  }
  await writer.end();
  process.exit(0);
} else {
  const { default: process } = await import("node:process");
  process.stdin.setEncoding("utf8");
  process.stdin.on("data", (text) => {
    const out = handle(text);
    if (out !== "") process.stdout.write(out);
  });
  process.stdin.on("end", () => process.exit(0));
}

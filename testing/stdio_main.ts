/**
 * The stdio mock server's script: `<runtime> stdio_main.ts <definition module URL>`. It imports
 * the module, serves its default export (a definition, or a function returning one) over
 * newline-delimited JSON-RPC on stdin/stdout, and exits when stdin closes.
 *
 * @module
 */

import process from "node:process";
import { mockServer } from "./mock_server.ts";
import type { MockDefinition } from "./types.ts";

const specifier = process.argv.at(-1);
if (specifier === undefined || !/^(file|https?|data):/.test(specifier)) {
  process.stderr.write("usage: stdio_main.ts <definition module URL>\n");
  process.exit(2);
}
const loaded = (await import(specifier)).default as MockDefinition | (() => MockDefinition);
const definition = typeof loaded === "function" ? loaded() : loaded;
const server = mockServer(definition);

let ended = false;
const finish = (code: number) => {
  if (ended) return;
  ended = true;
  process.stdout.write("", () => process.exit(code));
};
const connection = server.connect({
  send(message) {
    if (!ended) {
      process.stdout.write(`${typeof message === "string" ? message : JSON.stringify(message)}\n`);
    }
  },
  close(reason) {
    process.stderr.write(`mock server: ${reason ?? "closed"}\n`);
    finish(1);
  },
});

let buffer = "";
process.stdin.setEncoding("utf8");
process.stdin.on("data", (chunk: string) => {
  buffer += chunk;
  let newline: number;
  while ((newline = buffer.indexOf("\n")) !== -1) {
    const line = buffer.slice(0, newline).trim();
    buffer = buffer.slice(newline + 1);
    if (!line) continue;
    try {
      connection.receive(JSON.parse(line));
    } catch {
      process.stderr.write("mock server: skipped a line that is not JSON\n");
    }
  }
});
process.stdin.on("end", () => {
  connection.close?.();
  finish(0);
});

// One step of a script run as it goes: the child's stdout and stderr written through as they
// arrive (colour codes taken out) and also kept, for counting its results once it ends.
import { spawn } from "node:child_process";

// deno-lint-ignore no-control-regex
const COLOUR = /\x1b\[[0-9;]*m/g;

/**
 * Runs `command` with `args`, writing its output through `write` as it comes.
 *
 * @param {string} command
 * @param {string[]} args
 * @param {{ env?: Record<string, string | undefined>, write?: (text: string) => void }} [options]
 * @returns {Promise<{ status: number | null, output: string }>} The exit code (null when a
 *   signal ended it, or it could not start) and everything it wrote.
 */
export function runStreaming(command, args, options = {}) {
  const write = options.write ?? ((text) => void process.stdout.write(text));
  return new Promise((resolve) => {
    let output = "";
    const child = spawn(command, args, { env: options.env, stdio: ["ignore", "pipe", "pipe"] });
    const take = (chunk) => {
      const text = String(chunk).replace(COLOUR, "");
      output += text;
      write(text);
    };
    child.stdout.setEncoding("utf8");
    child.stderr.setEncoding("utf8");
    child.stdout.on("data", take);
    child.stderr.on("data", take);
    child.on("error", (error) => {
      take(`${command}: ${error.message}\n`);
      resolve({ status: null, output });
    });
    child.on("close", (status) => resolve({ status, output }));
  });
}

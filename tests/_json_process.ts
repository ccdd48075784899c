/**
 * Runs a fixture process to its end and reads the JSON report on its last stdout line.
 *
 * @module
 */

import { spawnProcess } from "../runtime/spawn.ts";
import { assertEquals } from "./_harness.ts";

/**
 * Runs `command` with `env`, fails the test when it does not exit with 0, and parses its last
 * stdout line.
 *
 * @param command The process.
 * @param env Its environment.
 * @param what What it is, for the failure message.
 * @returns The parsed report.
 */
export async function runJsonProcess<T>(
  command: { command: string; args: string[] },
  env: Record<string, string>,
  what: string,
): Promise<T> {
  const child = spawnProcess({ ...command, env });
  await child.stdin.close();
  const [out, err] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
  ]);
  const status = await child.exited;
  assertEquals(status.code, 0, `the ${what} process failed: ${err}`);
  return JSON.parse(out.trim().split("\n").at(-1) ?? "{}");
}

// The stdio weather server of the lazy-start and stored-catalogue tests
// (tests/fixtures/catalogue_server.ts), whose starts are counted in a file.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { mockStdio } from "../../testing/stdio.ts";

const FIXTURE = new URL("../fixtures/catalogue_server.ts", import.meta.url);
const FLAGS = ["--allow-read", "--allow-env", "--allow-write"];

/** A stdio entry for the fixture, its starts recorded in `dir`. */
export function weatherServer(dir: string, env: Record<string, string> = {}) {
  return {
    ...mockStdio(FIXTURE, { denoFlags: FLAGS }),
    env: { HUB_STARTS_FILE: join(dir, "starts"), ...env },
    stderr: "ignore" as const,
  };
}

/** The pids of the fixture's starts so far. */
export function startsIn(dir: string): number[] {
  try {
    return readFileSync(join(dir, "starts"), "utf8").split("\n").filter((l) => l).map(Number);
  } catch {
    return [];
  }
}

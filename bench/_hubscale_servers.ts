// The hubscale bench's servers: each LiveMCPBench server served by `mockStdio` from the
// catalogue file (its own tools, each answering with its name), starts counted in a file.
import { readFileSync } from "node:fs";
import { mockStdio } from "../testing/stdio.ts";

const MODULE = new URL("../tests/fixtures/catalogue_server.ts", import.meta.url);

/** The hub's server entries, by name, in the catalogue's order. */
export function serverEntries(catalogue: string, startsFile: string) {
  const servers = JSON.parse(readFileSync(catalogue, "utf8")) as { name: string }[];
  const command = mockStdio(MODULE, {
    denoFlags: ["--allow-read", "--allow-env", "--allow-write"],
  });
  return Object.fromEntries(servers.map(({ name }) => [name, {
    ...command,
    env: { HUB_CATALOGUE: catalogue, HUB_SERVER_NAME: name, HUB_STARTS_FILE: startsFile },
    stderr: "ignore" as const,
  }]));
}

// The real @modelcontextprotocol/server-everything inside profiles that allow what it needs:
// `node …/dist/index.js` runs under Deno's permissions (it reads three variables, and its own
// package folder for the documents it serves as resources: Deno loads modules without `read`,
// but a package reading its own files at run time needs its folder in `read`), its bin (a `#!/usr/bin/env node` script) runs in bubblewrap with its package
// folder readable. The client runs under Deno or Bun, whichever runs the test.
import { realpathSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { connect } from "../../mod.ts";
import { assert, assertEquals, test } from "../_harness.ts";
import { hostFacts } from "../../sandbox/launch.ts";
import { bwrapState, DENO } from "./_probe.ts";

const MODULES = realpathSync(fileURLToPath(new URL("../../node_modules", import.meta.url)));
const PACKAGE = `${MODULES}/@modelcontextprotocol/server-everything`;
const ENTRY = `${PACKAGE}/dist/index.js`;
const BIN = `${MODULES}/.bin/mcp-server-everything`;
const GZIP_ENV = ["GZIP_MAX_FETCH_SIZE", "GZIP_MAX_FETCH_TIME_MILLIS", "GZIP_ALLOWED_DOMAINS"];
const linux = (globalThis as { process?: { platform?: string } }).process?.platform === "linux";
const bwrap = bwrapState();

async function exercise(
  target: { command: string; args: string[]; sandbox: Record<string, unknown> },
  containment: string,
) {
  const warnings: string[] = [];
  await using client = await connect(target, {
    readyTimeout: 20_000,
    reconnect: false,
    onWarning: (message) => warnings.push(message),
  });
  assertEquals(client.status().containment, containment);
  const names = (await client.listAllTools()).map((tool) => tool.name);
  assert(names.includes("echo") && names.includes("get-sum"), names.join());
  assertEquals(
    (await client.callTool("echo", { message: "boxed" })).content[0].text,
    "Echo: boxed",
  );
  assertEquals(
    (await client.callTool("get-sum", { a: 2, b: 3 })).content[0].text,
    "The sum of 2 and 3 is 5.",
  );
  const resources = await client.listAllResources();
  assert(resources.length > 0, "it lists resources");
  assertEquals(warnings, []);
}

// `node script.js` runs under Deno when a deno is at hand (this process's, or one in PATH);
// without one (Bun, no deno in PATH) it goes to bubblewrap, which then needs all of
// node_modules readable (Node reads the package's dependencies as files).
const denoAtHand = hostFacts().deno !== undefined;

test(
  `sandbox: server-everything through node runs under ${
    denoAtHand ? "Deno permissions" : "bubblewrap (no deno at hand)"
  }`,
  async () => {
    const sandbox = { env: GZIP_ENV, read: [denoAtHand ? PACKAGE : MODULES] };
    await exercise(
      { command: "node", args: [ENTRY, "stdio"], sandbox },
      denoAtHand ? "deno-permissions" : "bwrap",
    );
  },
  { ignore: !denoAtHand && (!linux || !bwrap.ok), timeout: 40_000 },
);

test(
  "sandbox: server-everything through deno run, under Deno permissions (its 3 variables, its folder)",
  async () => {
    const sandbox = { env: GZIP_ENV, read: [PACKAGE] };
    await exercise({ command: DENO, args: ["run", ENTRY, "stdio"], sandbox }, "deno-permissions");
  },
  { timeout: 40_000 },
);

test(
  `sandbox: server-everything's bin runs in bubblewrap (read: its node_modules)${
    bwrap.ok ? "" : ` (skipped: ${bwrap.why})`
  }`,
  async () => {
    await exercise({ command: BIN, args: ["stdio"], sandbox: { read: [MODULES] } }, "bwrap");
  },
  { ignore: !linux || !bwrap.ok, timeout: 40_000 },
);

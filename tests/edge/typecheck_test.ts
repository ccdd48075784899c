// The edge type-check: http.ts must type-check with web libraries only (no "deno.ns"), as
// it would in a worker. The same command is a step of the gate:
//   node_modules/.bin/deno check --config tests/edge/deno.edge.json http.ts tests/edge/_worker.ts
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";
import { assert, assertStringIncludes, test } from "../_harness.ts";
import { ROOT } from "./_graph.ts";

const CONFIG = "tests/edge/deno.edge.json";

/** Runs `deno check --config tests/edge/deno.edge.json <files>` from the repository root. */
function denoCheck(...files: string[]): Promise<{ ok: boolean; output: string }> {
  const deno = fileURLToPath(new URL("node_modules/.bin/deno", ROOT));
  return new Promise((resolve) => {
    execFile(
      deno,
      ["check", "--quiet", "--config", CONFIG, ...files],
      {
        cwd: fileURLToPath(ROOT),
        env: { ...process.env, NO_COLOR: "1", DENO_NO_UPDATE_CHECK: "1" },
        maxBuffer: 16 << 20,
        timeout: 100_000,
      },
      (error, stdout, stderr) => resolve({ ok: error === null, output: `${stdout}${stderr}` }),
    );
  });
}

test(
  "edge type-check: http.ts (and the edge worker) check with lib esnext + dom, no deno.ns",
  async () => {
    const { ok, output } = await denoCheck("http.ts", "tests/edge/_worker.ts");
    assert(ok, `deno check --config ${CONFIG} http.ts tests/edge/_worker.ts failed:\n${output}`);
  },
  { timeout: 120_000 },
);

test("edge type-check: the config has no Deno namespace (a Deno. reference fails)", async () => {
  // A module that imports http.ts and says `Deno.`: under this config it must not check.
  const dir = mkdtempSync(join(tmpdir(), "conduit-edge-check-"));
  try {
    const probe = join(dir, "probe.ts");
    writeFileSync(
      probe,
      `import { connect } from ${JSON.stringify(new URL("http.ts", ROOT).href)};\n` +
        `export const probe: [unknown, number] = [connect, Deno.pid];\n`,
    );
    const { ok, output } = await denoCheck(probe);
    assert(!ok, "the probe must fail to type-check");
    assertStringIncludes(output, "Cannot find name 'Deno'");
    assertStringIncludes(output, "probe.ts");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}, { timeout: 120_000 });

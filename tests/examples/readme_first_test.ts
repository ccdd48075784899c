// The README's first example (First steps), run as written with the flags the README shows
// for each runtime, against the real @modelcontextprotocol/server-everything through `npx`
// (found in this checkout's node_modules: nothing is downloaded). The one change: the example
// imports this checkout by path instead of `jsr:@conduit/mcp`, which Deno runs with the
// checkout's config, as "Running a checkout" in the README says.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { assert, assertEquals, test } from "../_harness.ts";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const BIN = {
  deno: join(ROOT, "node_modules/.bin/deno"),
  bun: join(ROOT, "node_modules/.bin/bun"),
};

/** The First steps section's example and its command lines, as the README has them. */
function firstSteps(): { code: string; lines: string[] } {
  const readme = readFileSync(join(ROOT, "README.md"), "utf8");
  const section = readme.slice(
    readme.indexOf("## First steps"),
    readme.indexOf("\n## ", readme.indexOf("## First steps") + 1),
  );
  const code = /```ts ignore\n([\s\S]*?)```/.exec(section)?.[1] ?? "";
  const shell = /```sh\n([\s\S]*?)```/.exec(section)?.[1] ?? "";
  const lines = shell.split("\n").map((line) => line.replace(/#.*$/, "").trim()).filter(Boolean);
  return { code, lines };
}

for (const runtime of ["deno", "bun"] as const) {
  test(`README first example under ${runtime}, with the README's flags`, () => {
    const { code, lines } = firstSteps();
    assert(code.startsWith("// first.ts\n"), "the example is first.ts");
    const line = lines.find((l) => l.startsWith(`${runtime} `));
    assert(line !== undefined && line.endsWith(" first.ts"), `a ${runtime} line: ${lines}`);
    const words = line.split(/\s+/);
    assertEquals(words[0], runtime);
    const dir = mkdtempSync(join(tmpdir(), "conduit-readme-"));
    try {
      const file = join(dir, "first.ts");
      const source = code.replace('"jsr:@conduit/mcp"', JSON.stringify(join(ROOT, "mod.ts")));
      assert(source !== code, "the example imports jsr:@conduit/mcp");
      writeFileSync(file, source);
      // deno run <flags> first.ts → deno run --config <checkout>/deno.json <flags> <file>
      const args = runtime === "deno"
        ? [words[1], "--config", join(ROOT, "deno.json"), ...words.slice(2, -1), file]
        : [...words.slice(1, -1), file];
      const run = spawnSync(BIN[runtime], args, {
        cwd: ROOT, // npx finds server-everything in this checkout's node_modules
        encoding: "utf8",
        timeout: 100_000,
        env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp", NO_COLOR: "1" },
      });
      assertEquals(run.status, 0, `${line}\n${run.stdout}\n${run.stderr}`);
      // Colours, where the runtime chose them anyway, are not the example's output.
      // deno-lint-ignore no-control-regex
      const printed = run.stdout.replace(/\x1b\[[0-9;]*m/g, "").trim().split("\n");
      assertEquals(printed, ["legacy 2025-11-25", "true Echo: hi"]);
      if (runtime === "deno") {
        // "Running a checkout": deno check with the checkout's config finds every package.
        const check = spawnSync(BIN.deno, ["check", "--config", join(ROOT, "deno.json"), file], {
          cwd: dir,
          encoding: "utf8",
          timeout: 100_000,
          env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp", NO_COLOR: "1" },
        });
        assertEquals(check.status, 0, check.stderr);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, { timeout: 120_000 });
}

// The package as published (`npm run build`): every entry of deno.json bundled into `dist/`,
// what entries share in chunks of its own. The bundles must be the sources' twins: the same
// names, one class per class across entries, a plain client, the testing kit's mock server and
// the CLI working from them, the sources' types for a consumer, and a plain client loading few
// files. Built once, into a folder of this file's own under `out/`.
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { pathToFileURL } from "node:url";
import {
  assert,
  assertEquals,
  assertMatch,
  assertStrictEquals,
  assertStringIncludes,
  runtime,
  scriptCommand,
  test,
} from "../_harness.ts";
import { loadedModules, ROOT_PATH } from "./_budget.ts";
import { buildDist, bundleFile, type Dist } from "./_dist.ts";

/**
 * The most files a plain stdio connect + calls loads from the bundles (recorded under Bun, as
 * `LOADED_BUDGET` in `budget_test.ts` is for the sources).
 */
const DIST_LOADED_BUDGET = 38;

const exportsOf = (JSON.parse(readFileSync(join(ROOT_PATH, "deno.json"), "utf8")) as {
  exports: Record<string, string>;
}).exports;

let dist: Dist | undefined;
/** The bundles, built on first use and removed when the process exits. */
async function withDist(fn: (dist: Dist) => Promise<void> | void): Promise<void> {
  if (dist === undefined) {
    const built = buildDist();
    // Removed by the last test here; on exit too, when a filter skipped it.
    process.on("exit", () => built.remove());
    globalThis.addEventListener?.("unload", () => built.remove());
    dist = built;
  }
  await fn(dist);
}

const bundleUrl = (dist: Dist, key: string) => pathToFileURL(join(dist.dir, bundleFile(key))).href;

function run(
  command: string,
  args: string[],
  cwd = ROOT_PATH,
): Promise<{ code: number; out: string; err: string }> {
  return new Promise((resolve) => {
    execFile(command, args, { cwd, env: { ...process.env, NO_COLOR: "1" } }, (error, out, err) => {
      const code = error === null ? 0 : typeof error.code === "number" ? error.code : 1;
      resolve({ code, out: String(out), err: String(err) });
    });
  });
}

test("dist: each entry's bundle holds its source's names and names the source as its types", async () => {
  await withDist(async (dist) => {
    for (const [key, source] of Object.entries(exportsOf)) {
      const file = join(dist.dir, bundleFile(key));
      const head = readFileSync(file, "utf8").split("\n").filter((l) => !l.startsWith("#!"))[0];
      assertEquals(head, `// @ts-self-types="../../${source.slice(2)}"`, key);
      const built = await import(pathToFileURL(file).href) as Record<string, unknown>;
      const original = await import(new URL(source, `file://${ROOT_PATH}`).href) as Record<
        string,
        unknown
      >;
      assertEquals(Object.keys(built).sort(), Object.keys(original).sort(), key);
      for (const name of Object.keys(original)) {
        assertEquals(typeof built[name], typeof original[name], `${key} ${name}`);
      }
    }
  });
});

test("dist: a class is one class across the entries' bundles", async () => {
  await withDist(async (dist) => {
    const root = await import(bundleUrl(dist, ".")) as typeof import("../../mod.ts");
    const http = await import(bundleUrl(dist, "./http")) as typeof import("../../http.ts");
    assertStrictEquals(http.McpError, root.McpError);
    const governance = await import(
      bundleUrl(dist, "./governance")
    ) as typeof import("../../governance/mod.ts");
    // An error made by one entry's code is an instance of the class another entry exports.
    let thrown: unknown;
    try {
      governance.compileFilter({ allow: [42 as unknown as string] });
    } catch (error) {
      thrown = error;
    }
    assert(thrown instanceof Error, "compileFilter rejects a number as a pattern");
    assert(
      thrown instanceof TypeError || thrown instanceof root.McpError,
      `a TypeError or the root entry's McpError, got ${String(thrown)}`,
    );
  });
});

test("dist: a plain stdio client and the testing kit's mock server run from the bundles", async () => {
  await withDist(async (dist) => {
    const { connect } = await import(bundleUrl(dist, ".")) as typeof import("../../mod.ts");
    const fixture = scriptCommand(new URL("../fixtures/stdio_server.ts", import.meta.url));
    const client = await connect(fixture, { reconnect: false });
    try {
      const result = await client.callTool("echo", { message: "from the bundle" });
      assertEquals(result.content[0], { type: "text", text: "from the bundle" });
      const resource = await client.readResource("test://resource1");
      assert(resource.contents.length > 0, "the resource has contents");
    } finally {
      await client.close();
    }
    // The mock server's script is found from the bundle (its URL was rewritten to the source).
    const { mockStdio } = await import(
      bundleUrl(dist, "./testing")
    ) as typeof import("../../testing/mod.ts");
    const definition =
      "data:text/javascript,export default { tools: [{ name: 'hi', handler: () => 'hello' }] };";
    const mock = await connect(mockStdio(definition), { reconnect: false });
    try {
      const result = await mock.callTool("hi");
      assertEquals(result.content[0], { type: "text", text: "hello" });
    } finally {
      await mock.close();
    }
  });
});

test("dist: the CLI's bundle runs as a program, and importing it runs nothing", async () => {
  await withDist(async (dist) => {
    const cli = join(dist.dir, bundleFile("./cli"));
    const self = runtime === "deno" ? ["run", "--allow-all", cli] : [cli];
    const help = await run(process.execPath, [...self, "--help"]);
    assertEquals(help.code, 0, help.err);
    assertMatch(help.out, /^Usage: conduit-mcp /);
    const script = join(dist.dir, "import_cli.mjs");
    writeFileSync(script, `await import("./cli.js");\nconsole.log("imported");\n`);
    const imported = await run(
      process.execPath,
      runtime === "deno" ? ["run", "--allow-all", script] : [script],
    );
    assertEquals(imported.code, 0, imported.err);
    assertEquals(imported.out, "imported\n");
  });
});

test("dist: a consumer of a bundle is type-checked against the entry's sources", async () => {
  await withDist(async (dist) => {
    const dir = mkdtempSync(join(tmpdir(), "conduit-dist-types-"));
    try {
      const consumer = join(dir, "consumer.ts");
      writeFileSync(
        consumer,
        [
          `import { connect } from ${JSON.stringify(join(dist.dir, bundleFile(".")))};`,
          `const wrong: number = connect;`,
          `console.log(wrong);`,
          "",
        ].join("\n"),
      );
      const deno = join(ROOT_PATH, "node_modules", ".bin", "deno");
      const checked = await run(deno, [
        "check",
        "--config",
        join(ROOT_PATH, "deno.json"),
        consumer,
      ]);
      assert(checked.code !== 0, "a wrong use of connect fails the type check");
      // The error names the source's parameter types: the types came from `mod.ts`.
      assertStringIncludes(checked.out + checked.err, "ConnectTarget");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
}, { timeout: 120_000 }); // deno check: 7 s quiet, more on a busy machine

test("dist: a plain stdio client loads few files from the bundles", async () => {
  await withDist((dist) => {
    const loaded = loadedModules(`${dist.path}/${bundleFile(".")}`);
    assert(loaded.every((path) => path.startsWith(`${dist.path}/`)), loaded.join(", "));
    assert(
      loaded.length <= DIST_LOADED_BUDGET,
      `${loaded.length} files loaded, budget ${DIST_LOADED_BUDGET}: ${loaded.join(", ")}`,
    );
    // Lazy layers stay in chunks of their own: the files loaded are fewer than those built.
    assert(loaded.length < dist.files.length / 2, `${loaded.length} of ${dist.files.length}`);
  });
});

test("dist: what the http bundle loads at start imports no node: module, as its source", async () => {
  await withDist((dist) => {
    const seen = new Set<string>();
    const outside = new Set<string>();
    const queue = [bundleFile("./http")];
    while (queue.length > 0) {
      const name = queue.pop()!;
      if (seen.has(name)) continue;
      seen.add(name);
      const code = readFileSync(join(dist.dir, name), "utf8");
      for (const match of code.matchAll(/^(?:import|export)\b[^;]*?["']([^"']+)["'];?$/gm)) {
        if (match[1].startsWith("./")) queue.push(match[1].slice(2));
        else outside.add(match[1]);
      }
    }
    assert(seen.size > 1, `the http bundle imports its chunks: ${[...seen].join(", ")}`);
    assertEquals([...outside], [], "static imports from outside the bundles");
    dist.remove();
  });
});

// The package's sub-entries (deno.json "exports"): each loads, holds the names the README
// gives it, and type-checks; the edge-safe ones with web libraries only, as in a worker. The
// root entries keep the client and every type, and leave these functions to the sub-entries,
// so a plain client never loads them.
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import process from "node:process";
import { fileURLToPath } from "node:url";
import { assert, assertEquals, test } from "../_harness.ts";
import { ROOT } from "./_graph.ts";
import { staticModules } from "./_budget.ts";

/** The functions (and constants) each sub-entry holds, as the README names them. */
const SUB_ENTRIES: Record<string, { file: string; names: string[]; edge: boolean }> = {
  "./hub": { file: "hub/mod.ts", names: ["hub", "loadConfig", "searchTools"], edge: false },
  "./governance": {
    file: "governance/mod.ts",
    names: [
      "DEFAULT_MAX_CHARS",
      "compileFilter",
      "compileSchema",
      "createGovernance",
      "diffDefinitions",
      "evaluatePolicy",
      "fingerprint",
      "shapeResult",
    ],
    edge: true,
  },
  "./adapters": {
    file: "adapters/mod.ts",
    names: ["AI_SDK_SCHEMA", "aiSdkTools", "anthropicTools", "openAiTools"],
    edge: true,
  },
  "./cache": {
    file: "cache/mod.ts",
    names: ["denoKvStore", "memoryStore", "redisStore"],
    edge: true,
  },
  "./oauth": {
    file: "oauth/mod.ts",
    names: [
      "handleCallback",
      "idJagAssertion",
      "kvTokenStore",
      "loopbackCallback",
      "memoryTokenStore",
      "redisTokenStore",
      "withClientCredentials",
      "withOAuth",
    ],
    edge: false,
  },
};

/** Names that moved from the root to a sub-entry (`memoryStore` stays at both). */
const MOVED = Object.values(SUB_ENTRIES).flatMap((entry) => entry.names)
  .filter((name) => name !== "memoryStore");

/** Runs `deno check` (with `config`, when given) on `files` from the repository root. */
function denoCheck(files: string[], config?: string): Promise<{ ok: boolean; output: string }> {
  const deno = fileURLToPath(new URL("node_modules/.bin/deno", ROOT));
  const args = ["check", "--quiet", ...(config ? ["--config", config] : []), ...files];
  return new Promise((resolve) => {
    execFile(
      deno,
      args,
      {
        cwd: fileURLToPath(ROOT),
        env: { ...process.env, NO_COLOR: "1", DENO_NO_UPDATE_CHECK: "1" },
        maxBuffer: 16 << 20,
        timeout: 200_000,
      },
      (error, stdout, stderr) => resolve({ ok: error === null, output: `${stdout}${stderr}` }),
    );
  });
}

test("entries: deno.json exports each sub-entry, and publishes its folder", () => {
  const config = JSON.parse(readFileSync(new URL("deno.json", ROOT), "utf8")) as {
    exports: Record<string, string>;
    publish: { include: string[] };
  };
  for (const [name, entry] of Object.entries(SUB_ENTRIES)) {
    assertEquals(config.exports[name], `./${entry.file}`, name);
    const folder = `${entry.file.slice(0, entry.file.indexOf("/"))}/`;
    assert(config.publish.include.includes(folder), `${folder} is published`);
  }
});

test("entries: each sub-entry loads and holds its functions; the root entries do not", async () => {
  const root = await import(new URL("mod.ts", ROOT).href) as Record<string, unknown>;
  const edge = await import(new URL("http.ts", ROOT).href) as Record<string, unknown>;
  for (const entry of Object.values(SUB_ENTRIES)) {
    const module = await import(new URL(entry.file, ROOT).href) as Record<string, unknown>;
    for (const name of entry.names) {
      assert(module[name] !== undefined, `${entry.file} exports ${name}`);
    }
  }
  assertEquals(MOVED.filter((name) => name in root || name in edge), []);
  // What a plain client needs stays at the root.
  for (const name of ["connect", "createClient", "stdio", "streamableHttp", "memoryStore"]) {
    assert(typeof root[name] === "function", `mod.ts exports ${name}`);
  }
  assert(typeof edge.connect === "function" && typeof edge.memoryStore === "function");
});

test("entries: the root entries reach no sub-entry's code", () => {
  for (const entry of ["mod.ts", "http.ts"]) {
    const modules = staticModules(entry);
    const reached = Object.values(SUB_ENTRIES).map((sub) => sub.file)
      .concat(["hub/hub.ts", "adapters/openai.ts", "cache/redis.ts", "oauth/kv_store.ts"])
      .filter((file) => modules.includes(file));
    assertEquals(reached, [], `${entry} loads a sub-entry's code with it`);
  }
  // The check can fail: a sub-entry's own graph holds its code.
  assert(staticModules("hub/mod.ts").includes("hub/hub.ts"), "hub/mod.ts reaches hub.ts");
});

test(
  "entries: every sub-entry type-checks; the edge-safe ones without Deno's namespace",
  async () => {
    const files = Object.values(SUB_ENTRIES).map((entry) => entry.file);
    const all = await denoCheck(files);
    assert(all.ok, `deno check ${files.join(" ")} failed:\n${all.output}`);
    const edgeFiles = Object.values(SUB_ENTRIES).filter((entry) => entry.edge)
      .map((entry) => entry.file);
    const edge = await denoCheck(edgeFiles, "tests/edge/deno.edge.json");
    assert(edge.ok, `deno check (edge) ${edgeFiles.join(" ")} failed:\n${edge.output}`);
    // (typecheck_test.ts shows that this configuration refuses a module naming `Deno`.)
  },
  { timeout: 300_000 },
);

test("entries: every name the README's examples import from the package, its entry exports", async () => {
  const readme = readFileSync(new URL("README.md", ROOT), "utf8");
  const config = JSON.parse(readFileSync(new URL("deno.json", ROOT), "utf8")) as {
    exports: Record<string, string>;
  };
  const imports = [
    ...readme.matchAll(/import \{([^}]*)\} from "jsr:@conduit\/mcp(\/[a-z]+)?";/g),
  ];
  assert(imports.length >= 8, `the README's imports: ${imports.length}`);
  const wrong: string[] = [];
  for (const [, names, sub] of imports) {
    const file = config.exports[`.${sub ?? ""}`];
    assert(file !== undefined, `deno.json exports .${sub ?? ""}`);
    const module = await import(new URL(file, ROOT).href) as Record<string, unknown>;
    for (const name of names.split(",").map((n) => n.trim()).filter(Boolean)) {
      if (!name.startsWith("type ") && !(name in module)) wrong.push(`${name} from ${file}`);
    }
  }
  assertEquals(wrong, []);
});

test("entries: the edge-safe sub-entries reach no runtime/ and no stdio, as http.ts", () => {
  for (const entry of Object.values(SUB_ENTRIES).filter((sub) => sub.edge)) {
    const modules = staticModules(entry.file, undefined, { dynamic: true });
    const runtime = modules.filter((path) =>
      path.startsWith("runtime/") || path === "transports/stdio.ts"
    );
    assertEquals(runtime, [], `${entry.file} reaches a runtime`);
  }
  // The check can fail: the hub's entry starts stdio servers.
  assert(staticModules("hub/mod.ts").some((path) => path.startsWith("runtime/")));
});

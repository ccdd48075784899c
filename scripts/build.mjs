// The package as it is published: each entry of deno.json's "exports" bundled into `dist/`, with
// the code they share split into chunks, and `deno.publish.json`, the config `deno publish`
// reads to publish them. Runs under Bun (it drives `Bun.build`):
//
//   bun scripts/build.mjs            # dist/ and deno.publish.json
//   bun scripts/build.mjs OUT_DIR    # only the bundles, into OUT_DIR (the tests' way)
//
// Why: Deno loads a TypeScript module by its path, checks its cached emit and compiles it; a
// plain client's ~100 modules cost it most of its cold import. One bundle per entry, with what
// several entries share split into chunks and the layers behind dynamic imports in their own
// chunks, loads the same code from a handful of JavaScript files. Each bundle names its
// entry's TypeScript source as its types (`@ts-self-types`), so users type-check against, and
// read the docs of, the source; the code that runs is the same source, bundled. Nothing is
// minified (names and stack traces stay readable).
//
// A module that locates a file next to itself (`new URL("./x.ts", import.meta.url)`, as the
// testing kit's mock server and the CLI's session do) would point beside the chunk it lands in;
// such URLs are rewritten to the source file they name, which is published beside `dist/`.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const read = (path) => JSON.parse(readFileSync(join(ROOT, path), "utf8"));
/** deno.json and package.json, read once: the entries, and the packages kept as imports. */
const CONFIG = read("deno.json");
const PKG = read("package.json");

/** What `import.meta.main` is called while Bun bundles (see the plugin below). */
const MAIN_MARK = "__conduitImportMetaMain__";

/** The output name of an export ("." → "mod", "./oauth" → "oauth"). */
export function bundleName(key) {
  return key === "." ? "mod" : key.slice(2).replaceAll("/", "_");
}

/** `new URL("./x", import.meta.url)` in `source`, made to name the same file from `outdir`. */
function rewriteUrls(text, source, outdir) {
  return text.replace(
    /new URL\((["'])(\.{1,2}\/[^"']+)\1, import\.meta\.url\)/g,
    (_match, _quote, path) => {
      const target = relative(outdir, resolve(dirname(source), path)).replaceAll("\\", "/");
      return `new URL(${
        JSON.stringify(target.startsWith(".") ? target : `./${target}`)
      }, import.meta.url)`;
    },
  );
}

/** Bundles every export of deno.json into `outdir`; returns the written files' names. */
export async function bundle(outdir) {
  rmSync(outdir, { recursive: true, force: true });
  const entries = Object.entries(CONFIG.exports).map(([key, path]) => ({
    key,
    name: bundleName(key),
    source: join(ROOT, path),
  }));
  // Bun names an entry's bundle after its file, and several entries are `mod.ts`: an entry
  // whose file is not named as its bundle is bundled through a one-line module of that name
  // that re-exports it. (An entry bundled as itself keeps `import.meta.main`, as the CLI needs.)
  const stubs = join(outdir, ".entries");
  mkdirSync(stubs, { recursive: true });
  for (const entry of entries) {
    if (entry.source === join(ROOT, `${entry.name}.ts`)) {
      entry.stub = entry.source;
      continue;
    }
    entry.stub = join(stubs, `${entry.name}.ts`);
    writeFileSync(entry.stub, `export * from ${JSON.stringify(entry.source)};\n`);
  }
  const result = await Bun.build({
    entrypoints: entries.map((entry) => entry.stub),
    outdir,
    splitting: true,
    format: "esm",
    target: "node",
    minify: false,
    external: [...Object.keys(PKG.dependencies ?? {}), "node:*"],
    naming: { entry: "[name].[ext]", chunk: "_[hash].[ext]" },
    plugins: [{
      name: "source-urls",
      setup(build) {
        build.onLoad({ filter: /\.ts$/ }, (args) => {
          let text = readFileSync(args.path, "utf8");
          if (text.includes("import.meta.url")) text = rewriteUrls(text, args.path, outdir);
          // Bun turns `import.meta.main` into a CommonJS test that Deno cannot run; it is
          // kept under another name and given back below.
          text = text.replaceAll("import.meta.main", MAIN_MARK);
          return { contents: text, loader: "ts" };
        });
      },
    }],
  });
  rmSync(stubs, { recursive: true, force: true });
  if (!result.success) throw new AggregateError(result.logs, "the bundle failed");
  for (const output of result.outputs) {
    const text = readFileSync(output.path, "utf8");
    if (text.includes(MAIN_MARK)) {
      writeFileSync(output.path, text.replaceAll(MAIN_MARK, "import.meta.main"));
    }
  }
  for (const entry of entries) {
    const file = join(outdir, `${entry.name}.js`);
    const types = relative(outdir, entry.source).replaceAll("\\", "/");
    const text = readFileSync(file, "utf8");
    const shebang = text.startsWith("#!") ? text.slice(0, text.indexOf("\n") + 1) : "";
    const rest = text.slice(shebang.length);
    writeFileSync(file, `${shebang}// @ts-self-types="${types}"\n${rest}`);
  }
  return result.outputs.map((output) => relative(outdir, output.path)).sort();
}

/** deno.json with its exports pointing at the bundles, and `dist/` published with them. */
function publishConfig() {
  const exports = Object.fromEntries(
    Object.keys(CONFIG.exports).map((key) => [key, `./dist/${bundleName(key)}.js`]),
  );
  const publish = {
    ...CONFIG.publish,
    include: [...CONFIG.publish.include, "dist/"],
    exclude: [...CONFIG.publish.exclude ?? [], "!dist/"],
  };
  // The package imports by name: published as `npm:` specifiers of package.json's versions.
  const imports = Object.fromEntries(
    Object.entries(PKG.dependencies ?? {}).map((
      [name, version],
    ) => [name, `npm:${name}@${version}`]),
  );
  return { ...CONFIG, imports: { ...CONFIG.imports, ...imports }, exports, publish };
}

if (import.meta.main) {
  const out = process.argv[2];
  const outdir = resolve(out ?? join(ROOT, "dist"));
  const files = await bundle(outdir);
  if (out === undefined) {
    writeFileSync(
      join(ROOT, "deno.publish.json"),
      `${JSON.stringify(publishConfig(), null, 2)}\n`,
    );
  }
  console.log(`${files.length} files in ${relative(process.cwd(), outdir) || "."}`);
}

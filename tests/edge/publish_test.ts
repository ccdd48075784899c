// What `deno publish` uploads, read back from the upload itself: a copy of the package is built
// (`scripts/build.mjs`) and published with its `deno.publish.json` to a registry on 127.0.0.1
// that keeps the tarball. Every import of every uploaded module must resolve for a user: a
// package import as `npm:` with package.json's version (from deno.json alone, `deno publish`
// wrote `import … from "./jose"`), a chunk that was uploaded, or a `node:` module.
import { execFile } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join, normalize } from "node:path";
import process from "node:process";
import { gunzipSync } from "node:zlib";
import { assert, assertEquals, test } from "../_harness.ts";
import { ROOT_PATH } from "./_budget.ts";

/** The files of a tar archive (regular files only), by path. */
function untar(archive: Uint8Array): Map<string, string> {
  const files = new Map<string, string>();
  const text = new TextDecoder();
  const field = (at: number, length: number) =>
    text.decode(archive.subarray(at, at + length)).replace(/\0.*$/s, "");
  for (let at = 0; at + 512 <= archive.length;) {
    const name = field(at, 100);
    if (name === "") break;
    const size = parseInt(field(at + 124, 12).trim() || "0", 8);
    const prefix = field(at + 345, 155);
    const type = field(at + 156, 1);
    const path = (prefix === "" ? name : `${prefix}/${name}`).replace(/^\/+/, "");
    if (type === "" || type === "0") {
      files.set(path, text.decode(archive.subarray(at + 512, at + 512 + size)));
    }
    at += 512 + Math.ceil(size / 512) * 512;
  }
  return files;
}

/** A registry that answers one publish and keeps what was uploaded. */
async function registry(): Promise<{ url: string; upload: Promise<Uint8Array>; close(): void }> {
  let uploaded!: (bytes: Uint8Array) => void;
  const upload = new Promise<Uint8Array>((resolve) => uploaded = resolve);
  const task = { id: "task-1", packageScope: "conduit", packageName: "mcp", error: null };
  const server = createServer((request, response) => {
    const chunks: Uint8Array[] = [];
    request.on("data", (chunk: Uint8Array) => chunks.push(chunk));
    request.on("end", () => {
      const url = request.url ?? "";
      const json = (status: number, body: unknown) => {
        response.writeHead(status, { "content-type": "application/json" });
        response.end(JSON.stringify(body));
      };
      if (request.method === "POST" && /\/versions\/[^/?]+\?/.test(url)) {
        const body = new Uint8Array(Buffer.concat(chunks));
        uploaded(body);
        return json(202, { ...task, packageVersion: "0.1.0", status: "pending" });
      }
      if (url.startsWith("/api/publish_status/")) {
        return json(200, { ...task, packageVersion: "0.1.0", status: "success" });
      }
      if (/\/versions\/[^/]+$/.test(url)) {
        return json(404, { code: "packageVersionNotFound", message: "not found" });
      }
      if (url === "/api/scopes/conduit/packages/mcp") {
        return json(200, { scope: "conduit", name: "mcp" });
      }
      json(404, { code: "notFound", message: url });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/`, upload, close: () => server.close() };
}

/** The import specifiers of a module's code (doc comments' examples left out). */
function specifiers(code: string): string[] {
  const found: string[] = [];
  const patterns = [
    /^\s*(?:import|export)\b[^;]*?\bfrom\s*["']([^"']+)["']/gm,
    /^\s*import\s*["']([^"']+)["']/gm,
    /^(?!\s*(?:\*|\/\/)).*?\bimport\(\s*["']([^"']+)["']\s*\)/gm,
  ];
  for (const pattern of patterns) {
    for (const match of code.matchAll(pattern)) found.push(match[1]);
  }
  return found;
}

// A build and a `deno publish`, which type-checks the package: 12–17 s on a quiet 2-core
// machine, past the harness's default 20 s when the machine is busy.
test(
  "publish: the built package's upload imports only npm: versions, uploaded files and node:",
  async () => {
    const config = JSON.parse(readFileSync(join(ROOT_PATH, "deno.json"), "utf8")) as {
      exports: Record<string, string>;
      publish: { include: string[] };
    };
    const pkg = JSON.parse(readFileSync(join(ROOT_PATH, "package.json"), "utf8")) as {
      dependencies: Record<string, string>;
    };
    const copy = mkdtempSync(join(tmpdir(), "conduit-publish-"));
    const server = await registry();
    try {
      for (const path of [...config.publish.include, "deno.json", "package.json", "scripts/"]) {
        cpSync(join(ROOT_PATH, path), join(copy, path), { recursive: true });
      }
      symlinkSync(join(ROOT_PATH, "node_modules"), join(copy, "node_modules"));
      const bin = (name: string) => join(ROOT_PATH, "node_modules", ".bin", name);
      // No registry of packages is reachable: what publishing needs, it finds in node_modules.
      const env = {
        ...process.env,
        NO_COLOR: "1",
        JSR_URL: server.url,
        NPM_CONFIG_REGISTRY: "http://127.0.0.1:9/",
      };
      const run = (command: string, args: string[]) =>
        new Promise<string>((resolve, reject) => {
          execFile(command, args, { cwd: copy, env, maxBuffer: 16 << 20 }, (error, out, err) => {
            if (error) reject(new Error(`${args.join(" ")}: ${error.message}\n${out}\n${err}`));
            else resolve(String(out) + String(err));
          });
        });
      await run(bin("bun"), ["scripts/build.mjs"]);
      const published = await run(bin("deno"), [
        "publish",
        "--config",
        "deno.publish.json",
        "--token",
        "not-a-secret",
        "--allow-dirty",
      ]);
      assert(published.includes("Successfully published"), published);
      const files = untar(gunzipSync(await server.upload));

      // The exports point at the bundles, each typed by its entry's source, both uploaded.
      const uploadedConfig = JSON.parse(files.get("deno.publish.json") ?? "{}") as {
        exports: Record<string, string>;
      };
      assertEquals(Object.keys(uploadedConfig.exports).sort(), Object.keys(config.exports).sort());
      for (const [key, bundle] of Object.entries(uploadedConfig.exports)) {
        const code = files.get(bundle.slice(2));
        assert(code !== undefined, `${bundle} was uploaded`);
        const source = config.exports[key].slice(2);
        assert(
          code.includes(`// @ts-self-types="../${source}"`),
          `${bundle} is typed by ${source}`,
        );
        assert(files.has(source), `${source} was uploaded`);
      }

      // Every import of every uploaded module resolves for a user of the package.
      const versions = new Set(
        Object.entries(pkg.dependencies).map(([name, version]) => `npm:${name}@${version}`),
      );
      let modules = 0;
      for (const [path, code] of files) {
        if (!/\.(?:js|ts)$/.test(path) || path.startsWith("tests/")) continue;
        modules++;
        for (const specifier of specifiers(code)) {
          if (specifier.startsWith("node:")) continue;
          if (specifier.startsWith("npm:")) {
            const base = specifier.replace(/^(npm:(?:@[^/]+\/)?[^/@]+@[^/]+)(?:\/.*)?$/, "$1");
            assert(versions.has(base), `${path}: ${specifier} is a dependency's version`);
            continue;
          }
          assert(specifier.startsWith("."), `${path}: ${specifier} is relative`);
          const target = normalize(join(dirname(path), specifier));
          assert(files.has(target), `${path}: ${specifier} (${target}) was uploaded`);
        }
      }
      assert(modules > 100, `${modules} modules read`);
    } finally {
      server.close();
      rmSync(copy, { recursive: true, force: true });
    }
  },
  { timeout: 120_000 },
);

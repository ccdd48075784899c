/**
 * The package as published (`scripts/build.mjs`): each entry of deno.json bundled, the shared
 * code split into chunks. {@linkcode buildDist} builds it into a folder of its own under `out/`
 * (inside the repository, so the bundles' package imports resolve from its `node_modules`), for
 * the tests in `dist_test.ts` and `bench/startup.ts`.
 *
 * @module
 */

import { execFileSync } from "node:child_process";
import { readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import { bundleName } from "../../scripts/build.mjs";
import { ROOT_PATH } from "./_budget.ts";

let built = 0;

/** A built copy of the package's bundles: its folder, and its path from the repository root. */
export interface Dist {
  /** The absolute folder. */
  dir: string;
  /** The folder from the repository root (`out/dist-…`). */
  path: string;
  /** The bundle files written, sorted. */
  files: string[];
  /** Removes the folder. */
  remove(): void;
}

/** The name of the bundle of the export `key` ("." → "mod.js", "./oauth" → "oauth.js"). */
export function bundleFile(key: string): string {
  return `${bundleName(key)}.js`;
}

/** Builds the bundles into a new folder under `out/` with `bun scripts/build.mjs`. */
export function buildDist(): Dist {
  const path = `out/dist-${process.pid}-${Date.now()}-${built++}`;
  const dir = join(ROOT_PATH, path);
  execFileSync(join(ROOT_PATH, "node_modules", ".bin", "bun"), ["scripts/build.mjs", dir], {
    cwd: ROOT_PATH,
    encoding: "utf8",
    env: { ...process.env, NO_COLOR: "1" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const files = readdirSync(dir).sort();
  return { dir, path, files, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

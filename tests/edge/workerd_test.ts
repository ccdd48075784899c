// A real edge run: tests/edge/_worker.ts (which imports only http.ts) is bundled for the
// browser platform and run inside workerd through Miniflare, with outbound network access
// to 127.0.0.1 only. The worker connects to an MCP server on 127.0.0.1, calls a tool and
// answers with the result through its fetch handler.
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import type { Readable } from "node:stream";
import { fileURLToPath } from "node:url";
import { Miniflare } from "miniflare";
import { startHttpFixture } from "../fixtures/http_server.ts";
import {
  assert,
  assertArrayIncludes,
  assertEquals,
  assertStringIncludes,
  test,
} from "../_harness.ts";
import type { EdgeAnswer, EdgeJob } from "./_worker.ts";
import { relativePath, ROOT, walkGraph } from "./_graph.ts";

const WORKER = "tests/edge/_worker.ts";

interface Bundle {
  /** The bundled worker, as one ES module. */
  code: string;
  /** The bundle's inputs, repository-relative. */
  inputs: string[];
}

/** Bundles the worker with `bun build --target=browser` (the same bundler under both runtimes). */
function bundleWorker(): Promise<Bundle> {
  const dir = mkdtempSync(join(tmpdir(), "conduit-edge-bundle-"));
  const outfile = join(dir, "worker.js");
  const metafile = join(dir, "meta.json");
  const bun = fileURLToPath(new URL("node_modules/.bin/bun", ROOT));
  return new Promise<Bundle>((resolve, reject) => {
    execFile(
      bun,
      [
        "build",
        WORKER,
        "--target=browser",
        "--format=esm",
        "--conditions=workerd",
        "--conditions=worker",
        `--outfile=${outfile}`,
        `--metafile=${metafile}`,
      ],
      { cwd: fileURLToPath(ROOT), env: { ...process.env, NO_COLOR: "1" }, timeout: 60_000 },
      (error, stdout, stderr) => {
        try {
          if (error) throw new Error(`bun build failed: ${error.message}\n${stdout}${stderr}`);
          const meta = JSON.parse(readFileSync(metafile, "utf8")) as {
            inputs: Record<string, unknown>;
          };
          resolve({
            code: readFileSync(outfile, "utf8"),
            inputs: Object.keys(meta.inputs).map((input) =>
              relativePath(input.startsWith("/") ? input : fileURLToPath(new URL(input, ROOT)))
            ),
          });
        } catch (failure) {
          reject(failure);
        } finally {
          rmSync(dir, { recursive: true, force: true });
        }
      },
    );
  });
}

let bundled: Promise<Bundle> | undefined;
const bundle = () => bundled ??= bundleWorker();

/** Starts workerd with the bundled worker; outbound fetches may reach 127.0.0.1 only. */
async function startWorker(): Promise<Miniflare> {
  const { code } = await bundle();
  const mf = new Miniflare({
    modules: [{ type: "ESModule", path: "worker.js", contents: code }],
    compatibilityDate: "2026-07-01",
    host: "127.0.0.1",
    outboundService: { network: { allow: ["127.0.0.1/32"], deny: [] } },
  });
  await mf.ready;
  return mf;
}

async function runJob(
  mf: Miniflare,
  job: EdgeJob,
): Promise<{ status: number; answer: EdgeAnswer }> {
  const response = await mf.dispatchFetch("http://edge.test/", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(job),
  });
  const text = await response.text();
  try {
    return { status: response.status, answer: JSON.parse(text) as EdgeAnswer };
  } catch {
    throw new Error(`the worker answered ${response.status}: ${text.slice(0, 2000)}`);
  }
}

function text(result: unknown): string {
  const content = (result as { content?: { type: string; text?: string }[] }).content ?? [];
  return content.map((block) => block.text ?? "").join("");
}

test("workerd: the worker bundle holds only http.ts's graph", async () => {
  const { inputs, code } = await bundle();
  const graph = walkGraph("http.ts");
  const packages = [...graph.external.keys()];
  const outside = inputs.filter((input) => {
    if (input === WORKER || graph.modules.has(input)) return false;
    // A package may be reported by its resolved path when node_modules is a link.
    const npm = /(?:^|\/)node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(input);
    return !(npm && packages.includes(npm[1]));
  });
  assertEquals(outside, [], "bundle inputs outside http.ts's graph");
  assertArrayIncludes(inputs, ["http.ts", "transports/streamable_http.ts", "client/client.ts"]);
  assert(!/\bDeno\.|\bBun\./.test(code), "no Deno. or Bun. in the bundle");
}, { timeout: 60_000 });

test("workerd: a worker using ./http calls a tool on a modern server on 127.0.0.1", async () => {
  await using fixture = await startHttpFixture();
  const mf = await startWorker();
  try {
    const { status, answer } = await runJob(mf, {
      url: fixture.url.href,
      tool: "echo",
      args: { message: "from the edge" },
    });
    assertEquals(answer.error, undefined);
    assertEquals(status, 200);
    assertEquals(answer.userAgent, "Cloudflare-Workers");
    assertEquals(answer.globals, { Deno: "undefined", Bun: "undefined", process: "undefined" });
    assertEquals(answer.era, "modern");
    assertEquals(answer.version, "2026-07-28");
    assertArrayIncludes(answer.tools ?? [], ["echo"]);
    assertEquals(text(answer.result), "from the edge");
    // The requests really came from the worker, with the modern headers.
    const posts = fixture.requests.filter((r) => r.method === "POST");
    assert(posts.length >= 3, `discover, list and call reached the fixture: ${posts.length}`);
    const call = posts.find((r) => r.headers["mcp-method"] === "tools/call");
    assertEquals(call?.headers["mcp-name"], "echo");
    assertEquals(call?.headers["mcp-protocol-version"], "2026-07-28");
  } finally {
    await mf.dispose();
  }
}, { timeout: 60_000 });

test("workerd: answers over an event stream are read inside the worker", async () => {
  // The event stream reader loads with the transport's core: the bundle must carry it, and
  // workerd must run it.
  await using fixture = await startHttpFixture({ http: { response: "sse" } });
  const mf = await startWorker();
  try {
    const { status, answer } = await runJob(mf, {
      url: fixture.url.href,
      tool: "echo",
      args: { message: "streamed to the edge" },
    });
    assertEquals(answer.error, undefined);
    assertEquals(status, 200);
    assertEquals(answer.era, "modern");
    assertEquals(text(answer.result), "streamed to the edge");
    const call = fixture.requests.find((r) => r.headers["mcp-method"] === "tools/call");
    assert(call !== undefined, "the call reached the fixture");
  } finally {
    await mf.dispose();
  }
}, { timeout: 60_000 });

test("workerd: a worker using ./http speaks legacy with a session and DELETEs it", async () => {
  await using fixture = await startHttpFixture({ core: { mode: "legacy-only" } });
  const mf = await startWorker();
  try {
    const { status, answer } = await runJob(mf, {
      url: fixture.url.href,
      tool: "echo",
      args: { message: "legacy edge" },
    });
    assertEquals(answer.error, undefined);
    assertEquals(status, 200);
    assertEquals(answer.era, "legacy");
    assertEquals(text(answer.result), "legacy edge");
    assertEquals(fixture.deleted.length, 1, "the worker's close() deleted its session");
    assertEquals(fixture.sessions(), []);
  } finally {
    await mf.dispose();
  }
}, { timeout: 60_000 });

test(
  "workerd: the outbound allow-list is enforced (127.0.0.1 not allowed: nothing arrives)",
  async () => {
    await using fixture = await startHttpFixture();
    const { code } = await bundle();
    let runtimeErrors = "";
    const mf = new Miniflare({
      modules: [{ type: "ESModule", path: "worker.js", contents: code }],
      compatibilityDate: "2026-07-01",
      host: "127.0.0.1",
      outboundService: { network: { allow: ["public"], deny: [] } },
      handleRuntimeStdio(stdout: Readable, stderr: Readable) {
        stdout.resume();
        stderr.on("data", (chunk: Uint8Array) => runtimeErrors += new TextDecoder().decode(chunk));
      },
    });
    try {
      const { status, answer } = await runJob(mf, { url: fixture.url.href, tool: "echo" });
      assertEquals(status, 500);
      assertEquals(answer.error?.kind, "transport", JSON.stringify(answer.error));
      assertEquals(fixture.requests.length, 0, "nothing reached the fixture");
      assertStringIncludes(runtimeErrors, "blocked by restrictPeers");
    } finally {
      await mf.dispose();
    }
  },
  { timeout: 60_000 },
);

// Two processes sharing one cache: a Deno KV file (the children run under Deno, whichever
// runtime runs the test) and a real redis-server. With `ttlMs: 60000, cacheScope: "public"`
// the second process lists tools, reads a resource and has cachedTools() from ready() with
// no list or read request at the server; with "private" and another credentialId it asks.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { assert, assertEquals, scriptCommand, test } from "../_harness.ts";
import { runJsonProcess } from "../_json_process.ts";
import { startHttpFixture } from "../fixtures/http_server.ts";
import { startRedis } from "./_redis.ts";

const SCRIPT = new URL("../fixtures/cache_client.ts", import.meta.url);
const DENO = fileURLToPath(new URL("../../node_modules/.bin/deno", import.meta.url));

interface Report {
  cachedAtReady: number;
  tools: number;
  cached: number;
  read: string;
}

function run(
  command: { command: string; args: string[] },
  env: Record<string, string>,
): Promise<Report> {
  return runJsonProcess<Report>(command, env, "client");
}

/** Runs two client processes against one server; returns their reports and what each cost. */
async function twoProcesses(
  scope: "public" | "private",
  credentials: [string, string],
  command: { command: string; args: string[] },
  store: string,
): Promise<{ reports: Report[]; asked: number[]; other: string[][] }> {
  await using fixture = await startHttpFixture({ core: { ttlMs: 60_000, cacheScope: scope } });
  const counted = () =>
    fixture.core.methods().filter((m) => m === "tools/list" || m === "resources/read").length;
  const reports: Report[] = [];
  const asked: number[] = [];
  const other: string[][] = [];
  for (const credentialId of credentials) {
    const before = counted();
    const seen = fixture.core.methods().length;
    reports.push(
      await run(command, {
        CACHE_URL: fixture.url.href,
        CACHE_STORE: store,
        CREDENTIAL_ID: credentialId,
      }),
    );
    asked.push(counted() - before);
    const requests = fixture.core.methods().slice(seen);
    other.push([...new Set(requests)].filter((m) => m !== "tools/list" && m !== "resources/read"));
  }
  return { reports, asked, other };
}

function check(
  result: { reports: Report[]; asked: number[]; other: string[][] },
  shared: boolean,
): void {
  const [first, second] = result.reports;
  assertEquals(first.cachedAtReady, -1, "the first process found nothing in the store");
  assertEquals(result.asked[0], 2, "the first process listed and read at the server");
  assertEquals([first.tools, second.tools, second.cached], [7, 7, 7]);
  assertEquals(second.read, "contents of test://resource1");
  if (shared) {
    assertEquals(result.asked[1], 0, "the second process asked the server nothing cacheable");
    // What else it sends: the handshake, and the listen that keeps its listing fresh.
    // (the listen may not have gone out before the process ended).
    const allowed = ["server/discover", "subscriptions/listen"];
    assert(result.other[1].every((m) => allowed.includes(m)), `also sent ${result.other[1]}`);
    assertEquals(second.cachedAtReady, 7, "ready() filled cachedTools() from the store");
  } else {
    assertEquals(result.asked[1], 2, "another identity does not see private results");
    assertEquals(second.cachedAtReady, -1);
  }
}

test("shared cache: two processes on one Deno KV file", async () => {
  const dir = mkdtempSync(join(tmpdir(), "conduit-kv-"));
  const deno = { command: DENO, args: ["run", "-A", "--unstable-kv", fileURLToPath(SCRIPT)] };
  try {
    const file = join(dir, "cache.db");
    check(await twoProcesses("public", ["alice", "bob"], deno, `kv:${file}`), true);
    check(await twoProcesses("private", ["alice", "bob"], deno, `kv:${join(dir, "p.db")}`), false);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("shared cache: two processes on one redis-server", async () => {
  const redis = await startRedis();
  try {
    const command = scriptCommand(SCRIPT);
    check(await twoProcesses("public", ["alice", "bob"], command, `redis:${redis.port}`), true);
    const flush = await redis.client();
    await flush.command(["FLUSHALL"]);
    check(await twoProcesses("private", ["alice", "bob"], command, `redis:${redis.port}`), false);
    // The same identity shares its private entries across processes.
    await flush.command(["FLUSHALL"]);
    const same = await twoProcesses("private", ["alice", "alice"], command, `redis:${redis.port}`);
    assertEquals(same.asked, [2, 0]);
    assert(same.reports[1].cachedAtReady === 7);
  } finally {
    await redis.close();
  }
});

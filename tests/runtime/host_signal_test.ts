// A host killed by SIGTERM ends the process groups of the stdio servers it started, though
// the server ignores its stdin's end and left a grandchild: a real host subprocess, under the
// runtime running the tests.
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { assert, assertEquals, scriptCommand, test } from "../_harness.ts";

const HOST = fileURLToPath(new URL("../fixtures/signal_host.ts", import.meta.url));

/** Whether `pid` runs: it takes signal 0 and is not a zombie waiting to be reaped. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  // A process whose parent (the host) ended before reaping it stays a zombie until the
  // container's init reaps it, if it ever does: it runs nothing.
  const state = spawnSync("ps", ["-o", "stat=", "-p", String(pid)], { encoding: "utf8" });
  return !state.stdout.trim().startsWith("Z");
}

async function until(check: () => boolean, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) return false;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return true;
}

function readPids(file: string): number[] {
  try {
    return readFileSync(file, "utf8").trim().split(" ").map(Number).filter((n) => n > 0);
  } catch {
    return [];
  }
}

function startHost(pidFile: string, mode = "") {
  const { command, args } = scriptCommand(HOST);
  const host = spawn(command, [...args, pidFile, ...(mode ? [mode] : [])], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  host.stdout.on("data", (chunk) => out += chunk);
  host.stderr.on("data", (chunk) => out += chunk);
  const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) =>
    host.on("exit", (code, signal) => resolve({ code, signal }))
  );
  return { host, exited, output: () => out };
}

test(
  "a host killed by SIGTERM ends its stdio servers' process groups, grandchildren too",
  async () => {
    const dir = mkdtempSync(join(tmpdir(), "conduit-signal-"));
    const pidFile = join(dir, "pids");
    let pids: number[] = [];
    try {
      const { host, exited, output } = startHost(pidFile);
      assert(await until(() => readPids(pidFile).length === 2, 20_000), `no server: ${output()}`);
      pids = readPids(pidFile);
      assert(pids.every(alive), "the server and its grandchild run");
      host.kill("SIGTERM");
      const end = await exited;
      // The host still ends as SIGTERM ends a process.
      assert(
        end.signal === "SIGTERM" || end.code === 143,
        `host ended with ${JSON.stringify(end)}`,
      );
      assert(await until(() => !pids.some(alive), 3_000), `left running: ${pids.filter(alive)}`);
    } finally {
      for (const pid of pids) if (alive(pid)) process.kill(pid, "SIGKILL");
      rmSync(dir, { recursive: true, force: true });
    }
  },
  { timeout: 40_000 },
);

test(
  "a host that closes its client ends by itself: the signal handlers keep nothing alive",
  async () => {
    const dir = mkdtempSync(join(tmpdir(), "conduit-signal-"));
    const pidFile = join(dir, "pids");
    let pids: number[] = [];
    try {
      const { exited, output } = startHost(pidFile, "exit");
      const end = await Promise.race([
        exited,
        new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), 20_000)),
      ]);
      pids = readPids(pidFile);
      assertEquals(end, { code: 0, signal: null }, output());
      assert(output().includes("CLOSED"), output());
      assert(await until(() => !pids.some(alive), 3_000), "close() ended the group");
    } finally {
      for (const pid of pids) if (alive(pid)) process.kill(pid, "SIGKILL");
      rmSync(dir, { recursive: true, force: true });
    }
  },
  { timeout: 40_000 },
);

// The sandbox tests' world: a fake home folder with a planted secret, a project folder the
// server lives in (a copy of the probe server), a folder outside it, and a listener on
// 127.0.0.2 (loopback on Linux) the server may or may not reach.
import { spawn, spawnSync } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { connect, type McpClient } from "../../mod.ts";
import type { SandboxOptions } from "../../transports/stdio.ts";

const FIXTURE = fileURLToPath(new URL("../fixtures/sandbox_probe_server.mjs", import.meta.url));
/** The repository's `deno` (an npm dependency), which runs the Deno-permission servers. */
export const DENO = fileURLToPath(new URL("../../node_modules/.bin/deno", import.meta.url));
export const SECRET = "s3cret-planted-by-the-sandbox-test";
/** A listener on 127.0.0.2 (loopback on Linux) that prints its port and closes each socket. */
const LISTENER = `const s = require("node:net").createServer((c) => c.end());
s.listen(0, "127.0.0.2", () => console.log(s.address().port));
process.stdin.on("end", () => process.exit(0)).resume();`;

/** Whether bwrap is installed and can make a sandbox here (with its reason when not). */
export function bwrapState(): { ok: true } | { ok: false; why: string } {
  const probe = spawnSync("bwrap", ["--ro-bind", "/", "/", "--unshare-all", "true"], {
    encoding: "utf8",
  });
  if (probe.error) return { ok: false, why: "bwrap is not installed (Debian package bubblewrap)" };
  if (probe.status !== 0) {
    return { ok: false, why: `bwrap cannot run here: ${probe.stderr.trim()}` };
  }
  return { ok: true };
}

export interface World {
  root: string;
  home: string;
  secret: string;
  project: string;
  server: string;
  outside: string;
  port: number;
  close(): Promise<void>;
}

export async function world(): Promise<World> {
  const root = realpathSync(mkdtempSync(join(tmpdir(), "sandbox-test-")));
  const home = join(root, "home");
  const project = join(root, "project");
  const outside = join(root, "outside");
  for (const dir of [home, project, outside]) mkdirSync(dir);
  const secret = join(home, ".secret");
  writeFileSync(secret, SECRET);
  const server = join(project, "server.mjs");
  copyFileSync(FIXTURE, server);
  // The listener runs in a Node process of its own: the test runner may only reach 127.0.0.1.
  const listener = spawn("node", ["-e", LISTENER], { stdio: ["pipe", "pipe", "inherit"] });
  const port = await new Promise<number>((resolve, reject) => {
    listener.once("error", reject);
    listener.once("exit", (code) => reject(new Error(`the listener exited (${code})`)));
    listener.stdout!.once("data", (chunk) => resolve(Number(String(chunk).trim())));
  });
  return {
    root,
    home,
    secret,
    project,
    server,
    outside,
    port,
    async close() {
      const ended = new Promise((resolve) => listener.once("exit", resolve));
      listener.kill();
      await ended;
      rmSync(root, { recursive: true, force: true });
    },
  };
}

/** A tool's text answer. */
export async function probe(
  client: McpClient,
  tool: string,
  args: Record<string, unknown>,
): Promise<string> {
  const result = await client.callTool(tool, args);
  return String(result.content[0]?.text ?? "");
}

/** Connects to the probe server under `sandbox`, collecting warnings. */
export async function sandboxed(
  how: "deno" | "bwrap",
  w: World,
  sandbox: SandboxOptions,
  warnings: string[] = [],
  env?: Record<string, string>,
): Promise<McpClient> {
  // `node` with a Node flag is not a command Deno runs as it is: it goes to bubblewrap.
  const target = how === "deno"
    ? { command: DENO, args: ["run", w.server] }
    : { command: "node", args: ["--no-warnings", w.server] };
  return await connect({ ...target, cwd: w.project, sandbox, ...env ? { env } : {} }, {
    onWarning: (message) => warnings.push(message),
    readyTimeout: 15_000,
    reconnect: false,
  });
}

/** The four probes; each answer starts with "ok:" or "refused:". */
export async function probeAll(client: McpClient, w: World) {
  return {
    read: await probe(client, "read_file", { path: w.secret }),
    write: await probe(client, "write_file", { path: join(w.outside, "x.txt"), text: "hi" }),
    net: await probe(client, "connect", { host: "127.0.0.2", port: w.port }),
    spawn: await probe(client, "spawn", { command: "sh" }),
  };
}

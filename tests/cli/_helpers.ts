// Shared set-up for the CLI tests: cli.ts run as a subprocess under the current runtime
// (deno run -A cli.ts, or bun cli.ts), with its own config directory.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";
import { scriptCommand } from "../_harness.ts";

/** The CLI script. */
export const CLI = fileURLToPath(new URL("../../cli.ts", import.meta.url));

/** server-everything's stdio entry, run under Node: `-- node <this>`. */
export const EVERYTHING = fileURLToPath(
  new URL(
    "../../node_modules/@modelcontextprotocol/server-everything/dist/index.js",
    import.meta.url,
  ),
);

/** The command line that runs the CLI under the current runtime. */
export function cliCommand(): { command: string; args: string[] } {
  return scriptCommand(CLI);
}

/** What one CLI run printed and how it ended. */
export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** A temporary config directory for the CLI (tokens), removed by `dispose`. */
export function tempConfig(): { dir: string; dispose(): void } {
  const dir = mkdtempSync(join(tmpdir(), "conduit-cli-"));
  return { dir, dispose: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Options of {@linkcode runCli}. */
export interface RunOptions {
  /** Environment variables over the test's own. */
  env?: Record<string, string>;
  /** The config directory (default: a fresh temporary one). */
  configDir?: string;
  /** Called with each chunk of stderr (to react to a printed URL), and a way to signal the CLI. */
  onStderr?: (text: string, signal: (name: "SIGINT" | "SIGTERM") => void) => void;
  /** Called once the CLI started, with a way to signal it. */
  onStart?: (signal: (name: "SIGINT" | "SIGTERM") => void) => void;
  /** Called with each chunk of stdout, and a way to signal the CLI. */
  onStdout?: (text: string, signal: (name: "SIGINT" | "SIGTERM") => void) => void;
  /** Kill the run after this many ms (default 60 000). */
  timeout?: number;
  /** The working directory (default the test's). */
  cwd?: string;
}

/** Runs the CLI with `args` and collects its output. */
export function runCli(args: readonly string[], options: RunOptions = {}): Promise<CliRun> {
  const { command, args: head } = cliCommand();
  const temp = options.configDir === undefined ? tempConfig() : undefined;
  const env: Record<string, string> = {
    ...process.env as Record<string, string>,
    NO_COLOR: "1",
    DENO_NO_UPDATE_CHECK: "1",
    CONDUIT_MCP_CONFIG_DIR: options.configDir ?? temp!.dir,
    ...options.env,
  };
  const child = spawn(command, [...head, ...args], {
    env,
    cwd: options.cwd,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout!.setEncoding("utf8");
  child.stderr!.setEncoding("utf8");
  // process.kill, not child.kill: a child the runner killed itself may not report its exit code.
  const signal = (name: "SIGINT" | "SIGTERM") => void process.kill(child.pid!, name);
  options.onStart?.(signal);
  child.stdout!.on("data", (chunk: string) => {
    stdout += chunk;
    options.onStdout?.(chunk, signal);
  });
  child.stderr!.on("data", (chunk: string) => {
    stderr += chunk;
    options.onStderr?.(chunk, signal);
  });
  const timer = setTimeout(() => child.kill("SIGKILL"), options.timeout ?? 60_000);
  return new Promise((resolve) => {
    child.on("close", (code) => {
      clearTimeout(timer);
      temp?.dispose();
      resolve({ code, stdout, stderr });
    });
  });
}

/** The `-- node server-everything` tail of a command line. */
export const EVERYTHING_STDIO = ["--", "node", EVERYTHING];

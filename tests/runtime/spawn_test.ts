import { isMcpError, McpError } from "../../protocol/errors.ts";
import { runtimeName } from "../../runtime/detect.ts";
import { childEnv, SAFE_ENV_NAMES } from "../../runtime/env.ts";
import { spawnProcess } from "../../runtime/spawn.ts";
import {
  assert,
  assertEquals,
  assertRejects,
  assertStringIncludes,
  assertThrows,
  runtime,
  scriptCommand,
  test,
} from "../_harness.ts";

const toy = scriptCommand(new URL("../fixtures/stdio_toy.ts", import.meta.url));
const line = (id: number, method: string, params: Record<string, unknown> = {}) =>
  new TextEncoder().encode(JSON.stringify({ jsonrpc: "2.0", id, method, params }) + "\n");

// deno-lint-ignore no-explicit-any
const g = globalThis as any;
function setParentEnv(name: string, value: string): void {
  if (runtime === "bun") g.process.env[name] = value;
  else g.Deno.env.set(name, value);
}

test("detect: runtimeName names the runtime running the tests", () => {
  assertEquals(runtimeName(), runtime);
});

test("spawn: stdin, stdout and the exit status of a real child", async () => {
  const child = spawnProcess(toy);
  assert(child.pid > 0);
  const writer = child.stdin.getWriter();
  await writer.write(line(1, "echo", { hello: "world" }));
  await writer.write(line(2, "pid"));
  await writer.close();
  const [output, status] = await Promise.all([new Response(child.stdout).text(), child.exited]);
  await child.stderr.cancel();
  const replies = output.trim().split("\n").map((l) => JSON.parse(l));
  assertEquals(replies[0], { jsonrpc: "2.0", id: 1, result: { params: { hello: "world" } } });
  assertEquals(replies[1].result.pid, child.pid);
  assertEquals(status, { code: 0, signal: null });
  assertEquals(child.kill(), false, "no signal for a finished process");
});

test("spawn: exit codes, stderr, and death by signal", async () => {
  const failing = spawnProcess(toy);
  const writer = failing.stdin.getWriter();
  await writer.write(line(1, "exit", { code: 7, stderr: "bye\n" }));
  const [stderr, status] = await Promise.all([new Response(failing.stderr).text(), failing.exited]);
  await failing.stdout.cancel();
  assertEquals(stderr, "bye\n");
  assertEquals(status, { code: 7, signal: null });

  const stubborn = spawnProcess(toy);
  const w = stubborn.stdin.getWriter();
  await w.write(line(1, "stubborn"));
  const reader = stubborn.stdout.getReader();
  await reader.read(); // the answer: SIGTERM is now ignored
  assertEquals(stubborn.kill("SIGKILL"), true);
  assertEquals(await stubborn.exited, { code: null, signal: "SIGKILL" });
  await reader.cancel();
  await stubborn.stderr.cancel();
});

test("spawn: the child gets the safe variables and env, not the rest", async () => {
  setParentEnv("CONDUIT_TEST_PARENT_SECRET", "hunter2");
  const names = ["CONDUIT_TEST_PARENT_SECRET", "CONDUIT_TEST_GIVEN", "PATH"];
  const ask = async (options: Record<string, unknown>) => {
    const child = spawnProcess({ ...toy, ...options });
    const writer = child.stdin.getWriter();
    await writer.write(line(1, "env", { names }));
    await writer.close();
    const output = await new Response(child.stdout).text();
    await child.stderr.cancel();
    await child.exited;
    return JSON.parse(output).result.env;
  };
  const safe = await ask({ env: { CONDUIT_TEST_GIVEN: "yes" } });
  assertEquals(safe.CONDUIT_TEST_PARENT_SECRET, null);
  assertEquals(safe.CONDUIT_TEST_GIVEN, "yes");
  assert(typeof safe.PATH === "string" && safe.PATH.length > 0, "PATH is inherited");
  const all = await ask({ inheritEnv: "all" });
  assertEquals(all.CONDUIT_TEST_PARENT_SECRET, "hunter2");
  const listed = await ask({
    inheritEnv: [...SAFE_ENV_NAMES, "CONDUIT_TEST_PARENT_SECRET"],
    env: { PATH: "/override" + ":" + safe.PATH },
  });
  assertEquals(listed.CONDUIT_TEST_PARENT_SECRET, "hunter2");
  assert(listed.PATH.startsWith("/override:"), "env wins over inherited variables");
});

test("spawn: childEnv builds the environment from the inheritance rule", () => {
  const parent: Record<string, string> = {
    PATH: "/bin",
    HOME: "/home/me",
    AWS_SECRET_ACCESS_KEY: "s3cr3t",
    BASH_FUNC_x: "() { echo; }",
  };
  const read = (names: readonly string[] | "all") =>
    names === "all"
      ? { ...parent }
      : Object.fromEntries(names.filter((n) => n in parent).map((n) => [n, parent[n]]));
  const cases: [
    string,
    Parameters<typeof childEnv>[0],
    Record<string, string> | undefined,
    Record<string, string>,
  ][] = [
    ["safe", "safe", undefined, { PATH: "/bin", HOME: "/home/me" }],
    ["safe + env", "safe", { HOME: "/tmp", X: "1" }, { PATH: "/bin", HOME: "/tmp", X: "1" }],
    ["all drops shell functions", "all", undefined, {
      PATH: "/bin",
      HOME: "/home/me",
      AWS_SECRET_ACCESS_KEY: "s3cr3t",
    }],
    ["none", "none", { X: "1" }, { X: "1" }],
    ["a list", ["AWS_SECRET_ACCESS_KEY", "MISSING"], undefined, {
      AWS_SECRET_ACCESS_KEY: "s3cr3t",
    }],
  ];
  for (const [name, inherit, env, expected] of cases) {
    assertEquals(childEnv(inherit, env, read), expected, name);
  }
  assertThrows(() => childEnv("safe", { X: 1 as unknown as string }, read), TypeError, "env.X");
  assertThrows(() => childEnv("some" as "safe", undefined, read), TypeError, "inheritEnv");
});

test("spawn: a missing command is a transport McpError that names only the command", async () => {
  const error = assertThrows(
    () =>
      spawnProcess({
        command: "conduit-no-such-command-xyz",
        args: ["--token", "argsecret"],
        env: { API_KEY: "envsecret" },
      }),
    McpError,
  );
  assert(isMcpError(error));
  assertEquals([error.kind, error.reason], ["transport", "command_not_found"]);
  assertStringIncludes(error.message, "conduit-no-such-command-xyz");
  assert(!error.message.includes("envsecret") && !error.message.includes("argsecret"));
  const cwd = assertThrows(
    () => spawnProcess({ ...toy, cwd: "/conduit/no/such/dir" }),
    McpError,
  );
  assertEquals(cwd.kind, "transport");
  assertThrows(() => spawnProcess({ command: "" }), TypeError, "command");
  // The async form the stdio transport uses reports the same error.
  await assertRejects(
    () => Promise.resolve().then(() => spawnProcess({ command: "conduit-no-such-command-xyz" })),
    McpError,
    "not found",
  );
});

test("spawn: the child leads its own process group; killTree reaches what it started", async () => {
  // The shell starts a grandchild and waits: one group, two processes.
  const child = spawnProcess({ command: "sh", args: ["-c", "sleep 30 & wait"] });
  await child.stdin.close();
  assert(child.killTree !== undefined && child.treeAlive !== undefined, "groups on this platform");
  assertEquals(child.treeAlive(), true);
  assertEquals(child.killTree("SIGKILL"), true);
  assertEquals(await child.exited, { code: null, signal: "SIGKILL" });
  // The grandchild got it too: nothing of the group is left to signal (once its zombie is
  // reaped by whoever adopted it, which some init processes do only now and then).
  let left = true;
  for (let i = 0; i < 1_000 && left; i++) {
    left = child.treeAlive();
    if (left) await new Promise((resolve) => setTimeout(resolve, 10));
  }
  assertEquals(left, false, "no process of the group is left");
  assertEquals(child.killTree("SIGTERM"), false);
  await Promise.all([child.stdout.cancel(), child.stderr.cancel()]);
});

test("spawn: processGroup false keeps the child in this process's session and group", async () => {
  // Fields 5 and 6 of /proc/PID/stat: process group and session (Linux).
  const ids = async (processGroup?: boolean) => {
    const child = spawnProcess({
      command: "sh",
      args: ["-c", "cut -d' ' -f5,6 /proc/$$/stat /proc/$PPID/stat"],
      ...(processGroup === undefined ? {} : { processGroup }),
    });
    await child.stdin.close();
    const [own, parent] = (await new Response(child.stdout).text()).trim().split("\n");
    await child.stderr.cancel();
    assertEquals(await child.exited, { code: 0, signal: null });
    return { child, own, parent };
  };
  const apart = await ids();
  assertEquals(apart.own, `${apart.child.pid} ${apart.child.pid}`, "leads its group and session");
  const kept = await ids(false);
  assertEquals(kept.own, kept.parent, "the parent's group and session");
  assertEquals(kept.child.killTree, undefined, "no group of its own to signal");
  assertThrows(
    // deno-lint-ignore no-explicit-any
    () => spawnProcess({ command: "sh", processGroup: "no" as any }),
    TypeError,
    "processGroup must be a boolean",
  );
});

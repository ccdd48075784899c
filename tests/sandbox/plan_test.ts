// The sandbox planner, pure: which commands Deno runs, the exact Deno permission flags, the
// bubblewrap command line, the seccomp filter, and the choice per machine (refusals under
// `required` say why).
import { isMcpError } from "../../protocol/errors.ts";
import { bwrapArgs } from "../../sandbox/bwrap_args.ts";
import { denoForm, denoRunArgs } from "../../sandbox/deno_args.ts";
import { sandboxPlan } from "../../sandbox/launch.ts";
import { planSandbox } from "../../sandbox/plan.ts";
import { checkSandbox } from "../../sandbox/profile.ts";
import { noSpawnFilter, printfBytes } from "../../sandbox/seccomp.ts";
import { stdio } from "../../transports/stdio.ts";
import {
  assert,
  assertEquals,
  assertStringIncludes,
  assertThrows,
  fail,
  test,
} from "../_harness.ts";

const LINUX = { platform: "linux", arch: "x64", deno: "/opt/deno", bwrap: "/usr/bin/bwrap" };
const none = checkSandbox({}, "sandbox");

test("sandbox profile: lists default to none; bad members are TypeErrors naming them", () => {
  assertEquals(none, { read: [], write: [], net: [], env: [], run: [], required: false });
  const bad: [unknown, string][] = [
    [{ read: ["relative/path"] }, "sandbox.read[0] must be an absolute path"],
    [{ write: "/tmp" }, "sandbox.write must be an array"],
    [{ net: ["a.com,b.com"] }, "sandbox.net[0] must not contain a comma"],
    [{ env: ["NOT-A-NAME"] }, "sandbox.env[0] must be a variable name"],
    [{ run: [""] }, "sandbox.run[0] must be a non-empty string"],
    [{ required: "yes" }, "sandbox.required must be true or false"],
    [{ reads: [] }, 'Unknown option "reads" in sandbox (did you mean "read"?)'],
    [null, "sandbox must be an object"],
  ];
  for (const [value, message] of bad) {
    const error = assertThrows(() => checkSandbox(value, "sandbox"), TypeError);
    assertStringIncludes(error.message, message);
  }
});

test("sandbox profile: stdio checks it at creation, and refuses inheritEnv beside it", () => {
  assertThrows(
    () => stdio({ command: "x", sandbox: { read: ["rel"] } }),
    TypeError,
    "stdio options.sandbox.read[0] must be an absolute path",
  );
  assertThrows(
    () => stdio({ command: "x", sandbox: {}, inheritEnv: "all" }),
    TypeError,
    "inheritEnv cannot be given with sandbox",
  );
  assertEquals(stdio({ command: "x" }).containment(), "none");
  assertEquals(stdio({ command: "x", sandbox: {} }).containment(), undefined);
});

test("sandbox, Deno: the commands Deno runs, and those it does not", () => {
  assertEquals(denoForm("deno", ["run", "server.ts"])?.module, ["server.ts"]);
  assertEquals(denoForm("/usr/local/bin/deno", ["run", "-c", "deno.json", "-A", "s.ts", "-A"]), {
    deno: "/usr/local/bin/deno",
    flags: ["-c", "deno.json"],
    module: ["s.ts", "-A"], // the server's own arguments are its own
    dropped: ["-A"],
  });
  assertEquals(denoForm("jsr:@scope/server", ["--port", "1"])?.module, [
    "jsr:@scope/server",
    "--port",
    "1",
  ]);
  assertEquals(denoForm("npm:some-server@1", [])?.deno, undefined);
  assertEquals(denoForm("./server.ts", [])?.module, ["./server.ts"]);
  assertEquals(denoForm("node", ["dist/index.js", "stdio"])?.module, ["dist/index.js", "stdio"]);
  // Not as they are: a Node flag, a package runner, another subcommand, another language.
  assertEquals(denoForm("node", ["--inspect", "index.js"]), undefined);
  assertEquals(denoForm("npx", ["-y", "@modelcontextprotocol/server-everything"]), undefined);
  assertEquals(denoForm("bunx", ["some-server"]), undefined);
  assertEquals(denoForm("deno", ["task", "start"]), undefined);
  assertEquals(denoForm("deno", ["run", "-A"]), undefined);
  assertEquals(denoForm("python3", ["server.py"]), undefined);
});

test("sandbox, Deno: exactly the profile's --allow-* flags, the server's own taken out", () => {
  const form = denoForm("deno", [
    "run",
    "--allow-all",
    "-R",
    "--allow-read=/",
    "--allow-net",
    "--allow-scripts",
    "--allow-import",
    "--quiet",
    "main.ts",
  ])!;
  assertEquals(form.dropped, [
    "--allow-all",
    "-R",
    "--allow-read=/",
    "--allow-net",
    "--allow-scripts",
  ]);
  assertEquals(denoRunArgs(form, none), [
    "run",
    "--no-prompt",
    "--allow-import",
    "--quiet",
    "main.ts",
  ]);
  const profile = checkSandbox({
    read: ["/data"],
    write: ["/out"],
    net: ["api.example.com:443"],
    env: ["LANG"],
    run: ["git"],
  }, "sandbox");
  assertEquals(denoRunArgs(form, profile, ["API_KEY"]), [
    "run",
    "--no-prompt",
    "--allow-import",
    "--quiet",
    "--allow-read=/data,/out",
    "--allow-write=/out",
    "--allow-net=api.example.com:443",
    "--allow-env=LANG,API_KEY",
    "--allow-run=git",
    "main.ts",
  ]);
  const plan = planSandbox(none, { command: "deno", args: ["run", "-A", "main.ts"] }, LINUX);
  assertEquals(plan.spawn?.command, "deno"); // the deno the command names
  assertStringIncludes(plan.warnings[0], "(-A) are left out");
  const found = planSandbox(none, { command: "main.ts", args: [] }, LINUX);
  assertEquals(found.spawn?.command, "/opt/deno");
  assertEquals(found.spawn?.args, ["run", "--no-prompt", "main.ts"]);
});

test("sandbox, bubblewrap: the system read-only, the lists bound, a network only when asked", () => {
  const profile = checkSandbox({ read: ["/srv/app"], write: ["/srv/app/out"] }, "sandbox");
  const args = bwrapArgs(profile, "python3", ["server.py"], { cwd: "/srv/app", seccomp: true });
  const pairs = (flag: string) => args.flatMap((arg, i) => arg === flag ? [`${args[i + 1]}`] : []);
  assert(pairs("--ro-bind-try").includes("/usr"));
  assert(pairs("--ro-bind-try").includes("/etc/ld.so.cache"));
  assert(!pairs("--ro-bind-try").includes("/etc"), "not the whole of /etc");
  assert(!pairs("--ro-bind-try").includes("/etc/resolv.conf"), "no resolver without a network");
  assertEquals(pairs("--ro-bind"), ["/srv/app"]);
  assertEquals(pairs("--bind"), ["/srv/app/out"]);
  assertEquals(pairs("--tmpfs"), ["/tmp"]);
  for (const flag of ["--unshare-all", "--die-with-parent", "--new-session"]) {
    assert(args.includes(flag), flag);
  }
  assert(!args.includes("--share-net"));
  assertEquals(pairs("--chdir"), ["/srv/app"]);
  assertEquals(pairs("--seccomp"), ["3"]);
  assertEquals(args.slice(-3), ["--", "python3", "server.py"]);
  // The tmpfs comes before the binds, so a path under /tmp is bound into it.
  assert(args.indexOf("--tmpfs") < args.indexOf("--ro-bind"));

  const online = bwrapArgs(checkSandbox({ net: ["example.com"] }, "s"), "x", [], {});
  assert(online.includes("--share-net"));
  assert(online.includes("/etc/resolv.conf"));
  assert(!online.includes("--seccomp"));
});

test("sandbox, bubblewrap: the plan's environment is PATH, a private HOME, sandbox.env and env", () => {
  const profile = checkSandbox({ env: ["LANG"] }, "sandbox");
  const plan = planSandbox(profile, {
    command: "python3",
    args: ["s.py"],
    env: { API_KEY: "k" },
  }, LINUX);
  assertEquals(plan.containment, "bwrap");
  const spawn = plan.spawn!;
  assertEquals(spawn.command, "/bin/sh");
  assertEquals(spawn.inheritEnv, ["PATH", "LANG"]);
  assertEquals(spawn.env, { HOME: "/tmp", API_KEY: "k" });
  // The values never go on the command line (other users can read it in /proc).
  assert(!spawn.args.includes("k"));
  assertEquals(spawn.args[3], "/usr/bin/bwrap");
  assertEquals(spawn.args[2], printfBytes(noSpawnFilter("x64")));
  const withRun = planSandbox(
    checkSandbox({ run: ["git"] }, "s"),
    { command: "x", args: [] },
    LINUX,
  );
  assertEquals(withRun.spawn?.command, "/usr/bin/bwrap");
  assertStringIncludes(withRun.warnings.join("\n"), "cannot filter by program");
});

test("sandbox, seccomp: the filter's instructions, on both architectures", () => {
  for (const arch of ["x64", "arm64"] as const) {
    const program = noSpawnFilter(arch);
    assertEquals(program.length % 8, 0);
    const view = new DataView(program.buffer);
    // First: load the architecture; last three: allow, EPERM, ENOSYS.
    assertEquals([view.getUint16(0, true), view.getUint32(4, true)], [0x20, 4]);
    const n = program.length / 8;
    assertEquals(view.getUint32((n - 3) * 8 + 4, true), 0x7fff0000);
    assertEquals(view.getUint32((n - 2) * 8 + 4, true), 0x00050001);
    assertEquals(view.getUint32((n - 1) * 8 + 4, true), 0x00050026);
    // Every jump lands inside the program.
    for (let i = 0; i < n; i++) {
      const code = view.getUint16(i * 8, true);
      if ((code & 0x07) !== 0x05) continue;
      assert(i + 1 + view.getUint8(i * 8 + 2) < n && i + 1 + view.getUint8(i * 8 + 3) < n);
    }
  }
  assertEquals(noSpawnFilter("x64").length, 13 * 8);
  assertEquals(noSpawnFilter("arm64").length, 10 * 8);
});

test("sandbox: no sandbox applies → a warning, or sandbox_unavailable under required", () => {
  const server = { command: "python3", args: ["s.py"] };
  const cases: [Record<string, string>, string][] = [
    [{ platform: "linux", arch: "x64" }, "bwrap is not installed (Debian package bubblewrap)"],
    [{ platform: "darwin", arch: "arm64" }, "macOS sandboxing (sandbox-exec) is not supported yet"],
    [{ platform: "win32", arch: "x64" }, "Windows sandboxing is not supported yet"],
    [{ platform: "linux", arch: "riscv64", bwrap: "/usr/bin/bwrap" }, "on riscv64 (no seccomp"],
  ];
  for (const [host, why] of cases) {
    const loose = sandboxPlan(none, server, host as never);
    assertEquals(loose.containment, "none");
    assertEquals(loose.spawn?.command, "python3");
    assertStringIncludes(loose.warnings[0], why);
    assertStringIncludes(loose.warnings[0], "the server runs unsandboxed");
    try {
      sandboxPlan(checkSandbox({ required: true }, "s"), server, host as never);
      fail("required refuses");
    } catch (error) {
      assert(isMcpError(error));
      assertEquals([error.kind, error.reason], ["unavailable", "sandbox_unavailable"]);
      assertStringIncludes(error.message, `Cannot start "python3" sandboxed: `);
      assertStringIncludes(error.message, why);
    }
  }
  // A Deno module with no deno at hand on macOS: nothing applies either.
  const mac = planSandbox(none, { command: "server.ts", args: [] }, {
    platform: "darwin",
    arch: "x64",
  });
  assertStringIncludes(mac.unavailable!, "no deno executable was found");
  // With a deno, a Deno module is contained on any platform.
  const win = planSandbox(none, { command: "server.ts", args: [] }, {
    platform: "win32",
    arch: "x64",
    deno: "C:\\deno.exe",
  });
  assertEquals(win.containment, "deno-permissions");
});

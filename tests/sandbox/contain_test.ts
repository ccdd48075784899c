// A real server that tries to read a planted secret, write outside its folder, connect to a
// port on 127.0.0.2 and start a child: each refused under a profile that does not allow it
// and working under one that does, under Deno's permissions and under bubblewrap, with the
// client under Deno or Bun (whichever runs the test).
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { assert, assertEquals, assertStringIncludes, test } from "../_harness.ts";
import process from "node:process";
import { bwrapState, probe, probeAll, sandboxed, SECRET, world } from "./_probe.ts";

const linux = (globalThis as { process?: { platform?: string } }).process?.platform === "linux";
const bwrap = bwrapState();
if (!bwrap.ok) console.warn(`sandbox tests that need bubblewrap are skipped: ${bwrap.why}`);

for (const how of ["deno", "bwrap"] as const) {
  const skip = how === "bwrap" && (!linux || !bwrap.ok);
  const name = how === "deno" ? "Deno permissions" : "bubblewrap";
  const reason = skip && !bwrap.ok ? ` (skipped: ${bwrap.why})` : "";

  test(
    `sandbox, ${name}: an empty profile refuses the secret, the write, the port and the child${reason}`,
    async () => {
      const w = await world();
      try {
        await using client = await sandboxed(how, w, { read: [w.project] });
        assertEquals(client.status().containment, how === "deno" ? "deno-permissions" : "bwrap");
        const got = await probeAll(client, w);
        // Deno refuses each with NotCapable. In bubblewrap the home folder and the outside folder
        // are not there at all, the port is on a loopback of the server's own, and the seccomp
        // filter refuses the fork.
        assertEquals(
          got,
          how === "deno"
            ? {
              read: "refused: NotCapable",
              write: "refused: NotCapable",
              net: "refused: NotCapable",
              spawn: "refused: NotCapable",
            }
            : {
              read: "refused: ENOENT",
              write: "refused: ENOENT",
              net: "refused: ECONNREFUSED",
              spawn: "refused: EPERM",
            },
        );
        assert(!JSON.stringify(got).includes(SECRET), "the secret never came back");
        assert(!existsSync(join(w.outside, "x.txt")), "nothing was written outside");
      } finally {
        await w.close();
      }
    },
    { ignore: skip, timeout: 30_000 },
  );

  test(`sandbox, ${name}: a profile that allows them lets each one through${reason}`, async () => {
    const w = await world();
    try {
      const warnings: string[] = [];
      await using client = await sandboxed(how, w, {
        read: [w.project, w.home],
        write: [w.outside],
        net: [`127.0.0.2:${w.port}`],
        run: ["sh"],
      }, warnings);
      const got = await probeAll(client, w);
      assertEquals(got, {
        read: `ok: ${SECRET}`,
        write: "ok: written",
        net: "ok: connected",
        spawn: "ok: child-ran",
      });
      assertEquals(readFileSync(join(w.outside, "x.txt"), "utf8"), "hi");
      if (how === "bwrap") {
        // bubblewrap shares the whole network and cannot filter programs: it says so.
        assert(warnings.some((m) => m.includes("cannot filter by host")), warnings.join("\n"));
        assert(warnings.some((m) => m.includes("cannot filter by program")), warnings.join("\n"));
      } else assertEquals(warnings, []);
    } finally {
      await w.close();
    }
  }, { ignore: skip, timeout: 30_000 });

  test(`sandbox, ${name}: each grant opens its own door only${reason}`, async () => {
    const w = await world();
    try {
      // Only the home folder: the secret reads, the rest stays refused.
      await using client = await sandboxed(how, w, { read: [w.project, w.home] });
      const got = await probeAll(client, w);
      assertEquals(got.read, `ok: ${SECRET}`);
      assertStringIncludes(got.write, "refused:");
      assertStringIncludes(got.net, "refused:");
      assertStringIncludes(got.spawn, "refused:");
    } finally {
      await w.close();
    }
  }, { ignore: skip, timeout: 30_000 });

  test(
    `sandbox, ${name}: the server sees the env given to it and the names in sandbox.env, nothing else${reason}`,
    async () => {
      const w = await world();
      process.env.SANDBOX_TEST_NAMED = "named-value";
      process.env.SANDBOX_TEST_TOKEN = "parent-secret";
      try {
        const target = await sandboxed(
          how,
          w,
          {
            read: [w.project],
            env: ["SANDBOX_TEST_NAMED"],
          },
          [],
          { GIVEN: "given-value" },
        );
        await using client = target;
        const seen = async (name: string) => await probe(client, "env", { name });
        assertEquals(await seen("GIVEN"), "ok: given-value");
        assertEquals(await seen("SANDBOX_TEST_NAMED"), "ok: named-value");
        // Deno refuses to read it; bubblewrap never passed it.
        assertEquals(
          await seen("SANDBOX_TEST_TOKEN"),
          how === "deno" ? "refused: NotCapable" : "refused: unset",
        );
        // bubblewrap gives a private HOME; Deno refuses the real one.
        assertEquals(await seen("HOME"), how === "deno" ? "refused: NotCapable" : "ok: /tmp");
      } finally {
        delete process.env.SANDBOX_TEST_NAMED;
        delete process.env.SANDBOX_TEST_TOKEN;
        await w.close();
      }
    },
    { ignore: skip, timeout: 30_000 },
  );
}

// The lean rule: connecting to a server without a sandbox loads none of the sandbox but its
// option check; the launcher, planner, argument builders and seccomp filter load with
// `await import` when a server has a `sandbox`.
import { assert, assertEquals, test } from "../_harness.ts";
import { walkGraph } from "../edge/_graph.ts";

test("sandbox, lean: mod.ts loads only the sandbox's option check eagerly; the rest on demand", () => {
  const eager = [...walkGraph("mod.ts", { eager: true }).modules.keys()];
  assertEquals(eager.filter((path) => path.startsWith("sandbox/")), ["sandbox/profile.ts"]);
  assert(!eager.includes("runtime/host.ts"), "the host probe is not loaded eagerly");
  const all = [...walkGraph("mod.ts").modules.keys()];
  for (
    const path of ["sandbox/launch.ts", "sandbox/plan.ts", "sandbox/seccomp.ts", "runtime/host.ts"]
  ) {
    assert(all.includes(path), `${path} is reached through the dynamic import`);
  }
  // The edge entry names the containment type only (erased): no sandbox code loads there.
  const edge = [...walkGraph("http.ts", { eager: true }).modules.keys()];
  assertEquals(edge.filter((path) => path.startsWith("sandbox/")), []);
});

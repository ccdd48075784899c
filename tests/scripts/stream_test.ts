// `npm test` shows each step's output as it runs: scripts/_stream.mjs writes a child's
// output through as it arrives (a real child process that pauses between two lines) and
// keeps it all for the counts.
import process from "node:process";
import { runStreaming } from "../../scripts/_stream.mjs";
import { assert, assertEquals, test } from "../_harness.ts";

test("npm test: a step's output is written as it comes, and kept for the counts", async () => {
  const seen: { text: string; at: number }[] = [];
  const script = [
    'process.stdout.write("first\\n");',
    'process.stderr.write("\\x1b[31mwarn\\x1b[0m\\n");',
    'setTimeout(() => { process.stdout.write("second\\n"); process.exit(3); }, 1500);',
  ].join("");
  const started = Date.now();
  const result = await runStreaming(process.execPath, ["-e", script], {
    env: process.env,
    write: (text: string) => void seen.push({ text, at: Date.now() - started }),
  });
  const ended = Date.now() - started;
  assertEquals(result.status, 3);
  const first = seen.find((s) => s.text.includes("first"))!;
  assert(first !== undefined, JSON.stringify(seen));
  // "first" was written out a good while before the child ended.
  assert(ended - first.at >= 1_000, `first at ${first.at} ms, ended at ${ended} ms`);
  assertEquals(result.output.split("\n").sort(), ["", "first", "second", "warn"]);
  assertEquals(seen.map((s) => s.text).join(""), result.output);
});

test("npm test: a step that cannot start is a failed step, with what was wrong", async () => {
  const result = await runStreaming("conduit-no-such-command-xyz", [], { write: () => {} });
  assertEquals(result.status, null);
  assert(result.output.includes("conduit-no-such-command-xyz"), result.output);
});

// `npm test` runs its steps in lanes at once but shows their output as if they ran one after
// another: two real child processes run together (the second ends first, the first writes
// before and after it), and the output holds each one whole, in step order, with the first
// step written as it comes.
import process from "node:process";
import { orderedOutput } from "../../scripts/_ordered.mjs";
import { runStreaming } from "../../scripts/_stream.mjs";
import { assert, assertEquals, test } from "../_harness.ts";

/** A node script that writes `lines`, waiting `gap` ms before each. */
function script(lines: string[], gap: number): string {
  return `const lines = ${JSON.stringify(lines)}; let i = 0;
const next = () => { if (i === lines.length) return; process.stdout.write(lines[i++] + "\\n");
setTimeout(next, ${gap}); }; setTimeout(next, ${gap});`;
}

test("npm test: steps run at once, each shown whole and in order", async () => {
  const shown: { text: string; at: number }[] = [];
  const started = Date.now();
  const view = orderedOutput(3, (text: string) => void shown.push({ text, at: Date.now() }));
  const step = async (index: number, lines: string[], gap: number) => {
    const write = view.writer(index);
    write(`[${index}]\n`);
    await runStreaming("node", ["-e", script(lines, gap)], { env: process.env, write });
    view.end(index);
  };
  await Promise.all([
    step(0, ["a1", "a2", "a3"], 400),
    step(1, ["b1", "b2"], 50),
    step(2, ["c1"], 10),
  ]);
  const text = shown.map((s) => s.text).join("");
  assertEquals(text, "[0]\na1\na2\na3\n[1]\nb1\nb2\n[2]\nc1\n");
  // The first step was written as it came: its first line well before its last.
  const first = shown.find((s) => s.text.includes("a1"))!;
  const last = shown.find((s) => s.text.includes("a3"))!;
  assert(last.at - first.at >= 500, `a1 at ${first.at - started} ms, a3 at ${last.at - started}`);
  // The later steps ended before the first did, and were held until it ended.
  const b = shown.find((s) => s.text.includes("b1"))!;
  assert(b.at >= last.at, "the second step is shown after the first one ends");
});

test("npm test: a step ending while an earlier one runs waits for it, then the rest follow", () => {
  const shown: string[] = [];
  const view = orderedOutput(3, (text: string) => void shown.push(text));
  const [w0, w1, w2] = [view.writer(0), view.writer(1), view.writer(2)];
  w2("two ");
  view.end(2);
  w1("one ");
  w0("zero ");
  assertEquals(shown, ["zero "]);
  view.end(0);
  assertEquals(shown, ["zero ", "one "]);
  w1("more ");
  assertEquals(shown, ["zero ", "one ", "more "]);
  view.end(1);
  assertEquals(shown.join(""), "zero one more two ");
});

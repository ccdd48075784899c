// The README's "Command line" invocations, run as written (with `npm run -s cli --` standing
// for the CLI under the current runtime), their output and exit codes compared with the text.
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { assert, assertEquals, test } from "../_harness.ts";
import { runCli } from "./_helpers.ts";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const PROMPT = "$ npm run -s cli -- ";

interface Step {
  args: string[];
  output: string[];
  code: number;
}

/** The console block of the README's "Command line" section, as steps. */
function readmeSteps(): Step[] {
  const readme = readFileSync(`${ROOT}README.md`, "utf8");
  const section = readme.slice(readme.indexOf("## Command line"));
  const block = /```console\n([\s\S]*?)```/.exec(section)?.[1] ?? "";
  const steps: Step[] = [];
  for (const line of block.trimEnd().split("\n")) {
    if (line.startsWith(PROMPT)) {
      steps.push({ args: line.slice(PROMPT.length).split(/\s+/), output: [], code: 0 });
    } else if (line === "$ echo $?") {
      steps.at(-1)!.code = -1;
    } else if (steps.at(-1)?.code === -1) {
      steps.at(-1)!.code = Number(line);
    } else {
      steps.at(-1)!.output.push(line);
    }
  }
  return steps;
}

test("cli readme: the three invocations print what the README shows", async () => {
  const steps = readmeSteps();
  assertEquals(steps.length, 3);
  for (const step of steps) {
    const run = await runCli(step.args, { cwd: ROOT });
    assertEquals(run.code, step.code, `${step.args.join(" ")}\n${run.stderr}`);
    const printed = (run.stdout + run.stderr).trimEnd().split("\n");
    assertEquals(printed, step.output, step.args.join(" "));
  }
  assert(steps.some((step) => step.code === 2), "a usage error among them");
}, { timeout: 60_000 });

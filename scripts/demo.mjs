// `npm start`: runs examples/demo.ts under Deno, then under Bun (both come from npm), with
// their output streamed as it comes. Fails when either run fails. Node 20, no dependencies.
import { spawn } from "node:child_process";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const windows = process.platform === "win32";
const bin = (name) => join(root, "node_modules", ".bin", windows ? `${name}.cmd` : name);
const demo = join("examples", "demo.ts");

const runs = [
  {
    label: "Deno",
    command: bin("deno"),
    // --allow-run: to start the example server (which itself needs no permissions).
    // --no-prompt: deny anything else instead of asking; the stdio transport then leaves
    // out the variables (HOME, PATH…) it would pass on to the server, which needs none.
    args: ["run", "--no-prompt", "--allow-run", demo],
  },
  { label: "Bun", command: bin("bun"), args: [demo] },
];

function run({ command, args }) {
  return new Promise((resolve) => {
    const child = spawn(command, args, {
      cwd: root,
      stdio: "inherit",
      shell: windows,
      env: { ...process.env, DENO_NO_UPDATE_CHECK: "1" },
    });
    child.on("error", (error) => {
      console.error(`cannot start ${command}: ${error.message} (did you run npm ci?)`);
      resolve(false);
    });
    child.on("exit", (code, signal) => {
      if (code !== 0) console.error(`exited with ${signal ?? `code ${code}`}`);
      resolve(code === 0);
    });
  });
}

const failed = [];
for (const [index, entry] of runs.entries()) {
  if (index > 0) console.log();
  const shown = [relative(root, entry.command), ...entry.args].join(" ");
  console.log(`━━━ ${entry.label}: ${shown}\n`);
  if (!(await run(entry))) failed.push(entry.label);
}
if (failed.length > 0) {
  console.error(`\nThe demo failed under ${failed.join(" and ")}.`);
  process.exit(1);
}
console.log("\nThe demo ran under Deno and Bun.");

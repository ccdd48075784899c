// The CLI answering a server's questions as a person would, in a detached tmux session (its
// own tmux server, killed in finally), with the CLI run under Deno and under Bun whichever
// runner runs the test: server-everything's elicitation form (a required field left empty
// and asked again, an out-of-range number refused with the reason, enums by number, a
// multi-select, defaults kept with Enter), the fixture's URL request (printed, sanitised,
// opened on request with the system's opener) and a form cancelled with Ctrl-C (the call
// goes on and ends normally), and a modern server's form answered through `input_required`
// rounds. With CONDUIT_CLI_PANES=<file>, the captured panes are written to <file>.elicit-*.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import process from "node:process";
import { assert, assertEquals, scriptCommand, test } from "../_harness.ts";
import { CLI, EVERYTHING, tempConfig } from "./_helpers.ts";

const BIN = (name: string) =>
  fileURLToPath(new URL(`../../node_modules/.bin/${name}`, import.meta.url));
/** The CLI's command line under each runtime. */
const RUNTIMES = {
  deno: [BIN("deno"), "run", "-A", CLI],
  bun: [BIN("bun"), CLI],
};
const FIXTURE = scriptCommand(
  fileURLToPath(new URL("../fixtures/stdio_server.ts", import.meta.url)),
);

const sh = (word: string) => `'${word.replace(/'/g, `'\\''`)}'`;

function tmuxServer() {
  const dir = mkdtempSync(join(tmpdir(), "conduit-cli-elicit-"));
  const socket = join(dir, "socket");
  const tmux = (...args: string[]) =>
    execFileSync("tmux", ["-S", socket, ...args], { encoding: "utf8" });
  return {
    tmux,
    /** The whole pane of `session` (its history too), wrapped lines joined. */
    capture: (session: string) =>
      tmux("capture-pane", "-p", "-J", "-S", "-500", "-t", session).trimEnd(),
    keys: (session: string, ...keys: string[]) => tmux("send-keys", "-t", session, ...keys),
    kill() {
      try {
        tmux("kill-server");
      } catch {
        // Already gone.
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function until(read: () => string, check: (text: string) => boolean, what: string) {
  const end = Date.now() + 30_000;
  for (;;) {
    const text = read();
    if (check(text)) return text;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}:\n${text}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function commandLine(cli: string[], args: string[], configDir: string, env = ""): string {
  const vars = `-u DISPLAY -u WAYLAND_DISPLAY NO_COLOR=1 ${env} ` +
    `CONDUIT_MCP_CONFIG_DIR=${sh(configDir)} DENO_NO_UPDATE_CHECK=1`;
  return `env ${vars} ${[...cli, ...args].map(sh).join(" ")}; echo EXIT=$?; sleep 60`;
}

const URL_REQUEST = {
  method: "elicitation/create",
  params: {
    mode: "url",
    message: "Sign\x1b[2J\x1b[H in\u202e please",
    url: "https://auth.example/connect?step=1",
    elicitationId: "e1",
  },
};
const FORM = {
  method: "elicitation/create",
  params: {
    message: "Deploy where?",
    requestedSchema: {
      type: "object",
      properties: {
        env: {
          type: "string",
          title: "Environment\x1b[31m",
          oneOf: [{ const: "stg", title: "Staging" }, { const: "prd", title: "Production" }],
        },
        replicas: { type: "integer", minimum: 1, maximum: 9, default: 2 },
        note: { type: "string", description: "Anything to add" },
      },
      required: ["env"],
    },
  },
};

for (const [runtime, cli] of Object.entries(RUNTIMES)) {
  test(`cli tmux elicit (${runtime}): server-everything's form, typed answers`, async () => {
    const config = tempConfig();
    const tmux = tmuxServer();
    const panes: string[] = [];
    try {
      const line = commandLine(
        cli,
        ["call", "trigger-elicitation-request", "--", "node", EVERYTHING],
        config.dir,
      );
      tmux.tmux("new-session", "-d", "-s", "form", "-x", "120", "-y", "50", line);
      const prompt = (n: number) => (text: string) => (text.match(/\] >/g) ?? []).length >= n;
      let asked = 1;
      const type = async (...keys: string[]) => {
        tmux.keys("form", ...keys);
        asked++;
        await until(() => tmux.capture("form"), prompt(asked), `prompt ${asked}`);
      };
      const first = await until(() => tmux.capture("form"), prompt(1), "the first prompt");
      assert(first.includes("asks: Please provide inputs for the following fields:"), first);
      assert(/String — Your full, legal name\n\[required\] >/.test(first), first);
      await type("Enter"); // the required name left empty: asked again
      await type("Ada", "Enter");
      await type("y", "Enter"); // check
      await type("Enter"); // firstLine: its default
      await type("ada@example", "Enter"); // not an email: asked again
      await type("ada@example.com", "Enter");
      await type("Enter"); // homepage: optional, left out
      await type("Enter"); // birthdate: optional, left out
      await type("500", "Enter"); // integer: out of range, asked again
      await type("7", "Enter");
      await type("Enter"); // number: its default
      await type("3", "Enter"); // Joey
      await type("2,4", "Enter"); // Piano, Drums
      await type("3", "Enter"); // Wonder Woman
      await type("Enter"); // fish: default
      await type("Dogs", "Enter"); // the legacy titled enum, by its label
      tmux.keys("form", "Enter"); // send
      const done = await until(() => tmux.capture("form"), (t) => t.includes("EXIT="), "the end");
      panes.push(`--- ${runtime}: server-everything's form ---\n${done}\n`);
      assert(
        /\[required\] > ?\n {2}✗ required: type a value \(Ctrl-C cancels\)\n/.test(done),
        done,
      );
      assert(done.includes("> ada@example\n  ✗ String with email format is not an email"), done);
      assert(done.includes("> 500\n  ✗ Integer must be at most 100\n"), done);
      assert(done.includes("  3) Wonder Woman (hero-3)\n"), done);
      const raw = JSON.parse(done.slice(done.indexOf("Raw result: ") + 12, done.indexOf("EXIT=")));
      assertEquals(raw, {
        action: "accept",
        content: {
          name: "Ada",
          check: true,
          firstLine: "It was a dark and stormy night.",
          email: "ada@example.com",
          integer: 7,
          number: 3.14,
          untitledSingleSelectEnum: "Joey",
          untitledMultipleSelectEnum: ["Piano", "Drums"],
          titledSingleSelectEnum: "hero-3",
          titledMultipleSelectEnum: ["fish-1"],
          legacyTitledEnum: "pet-2",
        },
      });
      assert(done.endsWith("EXIT=0"), done);
    } finally {
      tmux.kill();
      config.dispose();
      const file = process.env.CONDUIT_CLI_PANES;
      if (file) writeFileSync(`${file}.elicit-${runtime}`, panes.join("\n"));
    }
  }, { timeout: 90_000 });

  test(
    `cli tmux elicit (${runtime}): a URL request, Ctrl-C cancelling a form, both eras`,
    async () => {
      const config = tempConfig();
      const tmux = tmuxServer();
      const panes: string[] = [];
      try {
        const fixture = (mode: string) => [
          "--",
          "env",
          `FIXTURE_KNOBS=${JSON.stringify({ mode, listMrtr: true })}`,
          FIXTURE.command,
          ...FIXTURE.args,
        ];
        // Legacy: the URL request, then a form cancelled with Ctrl-C.
        const plan = JSON.stringify({ plan: [{ link: URL_REQUEST }, { form: FORM }] });
        // The system's opener, as the login uses it: a stand-in `xdg-open` that notes its URL.
        const bin = join(config.dir, "bin");
        const opened = join(config.dir, "opened.txt");
        mkdirSync(bin);
        writeFileSync(join(bin, "xdg-open"), `#!/bin/sh\nprintf '%s\\n' "$@" > ${sh(opened)}\n`, {
          mode: 0o755,
        });
        const legacy = commandLine(
          cli,
          ["call", "mrtr", "--args", plan, ...fixture("legacy-only")],
          config.dir,
          `DISPLAY=:0 PATH=${sh(`${bin}:${process.env.PATH}`)}`,
        );
        tmux.tmux("new-session", "-d", "-s", "legacy", "-x", "120", "-y", "40", legacy);
        const url = await until(
          () => tmux.capture("legacy"),
          (t) => t.includes("Ctrl-C cancels] >"),
          "the URL",
        );
        assert(url.includes(" asks: Sign in please\n"), url);
        assert(
          url.includes("\n  https://auth.example/connect?step=1\n  site: auth.example\n"),
          url,
        );
        tmux.keys("legacy", "y", "Enter");
        await until(
          () => existsSync(opened) ? readFileSync(opened, "utf8") : "",
          (text) => text !== "",
          "the opener to be run",
        );
        assertEquals(readFileSync(opened, "utf8"), "https://auth.example/connect?step=1\n");
        const form = await until(
          () => tmux.capture("legacy"),
          (t) => t.includes("[a number, required] >"),
          "the form's first prompt",
        );
        // The title's escape sequence is gone; the message is still above (no screen cleared).
        assert(form.includes("\nEnvironment\n  1) Staging (stg)\n  2) Production (prd)\n"), form);
        assert(form.includes("Sign in please"), form);
        tmux.keys("legacy", "C-c");
        const ended = await until(
          () => tmux.capture("legacy"),
          (t) => t.includes("EXIT="),
          "the end",
        );
        panes.push(`--- ${runtime}: legacy URL request and Ctrl-C ---\n${ended}\n`);
        // Captured with its attributes: no colour or escape of the server's reached the pane.
        const painted = tmux.tmux("capture-pane", "-p", "-e", "-J", "-S", "-500", "-t", "legacy");
        assert(!painted.includes("\x1b") && !painted.includes("\u202e"), JSON.stringify(painted));
        assert(ended.includes("(answered cancel)\n"), ended);
        const result = JSON.parse(
          ended.slice(ended.lastIndexOf('{"rounds"'), ended.indexOf("EXIT=")),
        );
        assertEquals(result.rounds, [{ link: { action: "accept" } }, {
          form: { action: "cancel" },
        }]);
        assert(ended.endsWith("EXIT=0"), ended);

        // Modern: the form through input_required rounds, answered by typing.
        const modern = commandLine(
          cli,
          [
            "call",
            "mrtr",
            "--args",
            JSON.stringify({ plan: [{ form: FORM }] }),
            ...fixture("modern-only"),
          ],
          config.dir,
        );
        tmux.tmux("new-session", "-d", "-s", "modern", "-x", "120", "-y", "40", modern);
        const step = async (keys: string[], wait: string) => {
          tmux.keys("modern", ...keys);
          await until(() => tmux.capture("modern"), (t) => t.includes(wait), wait);
        };
        await until(
          () => tmux.capture("modern"),
          (t) => t.includes("[a number, required] >"),
          "env",
        );
        await step(
          ["production", "Enter"],
          "[a whole number, from 1, to 9, default 2, optional] >",
        );
        await step(["Enter"], "[optional] >");
        await step(["all good", "Enter"], "Send these answers? [Y/n] >");
        tmux.keys("modern", "Enter");
        const sent = await until(
          () => tmux.capture("modern"),
          (t) => t.includes("EXIT="),
          "the end",
        );
        panes.push(`--- ${runtime}: modern form ---\n${sent}\n`);
        const answered = JSON.parse(
          sent.slice(sent.lastIndexOf('{"rounds"'), sent.indexOf("EXIT=")),
        );
        assertEquals(answered.rounds, [{
          form: { action: "accept", content: { env: "prd", replicas: 2, note: "all good" } },
        }]);
      } finally {
        tmux.kill();
        config.dispose();
        const file = process.env.CONDUIT_CLI_PANES;
        if (file) writeFileSync(`${file}.elicit-url-${runtime}`, panes.join("\n"));
      }
    },
    { timeout: 90_000 },
  );
}

// What a plain client loads and ships, against numbers written here (deterministic, not
// timed; the timed side is `node bench/run.mjs startup`). A plain client connects, lists and
// calls tools, reads a resource, gets a prompt and listens for notifications: it must not load
// the layers above the wire that it did not ask for. Lower a number when the graph shrinks;
// raising one needs a reason in the commit.
import { assert, assertEquals, test } from "../_harness.ts";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import {
  bundleSize,
  loadedBy,
  loadedModules,
  ROOT_PATH,
  startBundle,
  staticModules,
} from "./_budget.ts";

/** The most local modules each entry may load with it (`deno info --json`, value imports). */
const STATIC_BUDGET = { "mod.ts": 81, "http.ts": 66 };

/**
 * The most local modules a real process may load through a plain stdio connect + calls under
 * each entry (recorded under Bun, dynamic imports that ran included; `http.ts` is given the
 * stdio transport as a transport target).
 */
const LOADED_BUDGET = { "mod.ts": 89, "http.ts": 88 };

/**
 * What a plain `http.ts` connect + call may ship at start, minified and gzipped, in bytes.
 * The minified size is the same on every build; gzip's varies by a few bytes with the chunks'
 * names (hashes), so its number is the largest of several builds plus three.
 */
const BUNDLE_BUDGET = { start: 82_425, gzip: 30_694 };

/** The task machinery: what runs a call as a task and waits for it. */
const TASK_MACHINERY = [
  "client/tasks/call.ts",
  "client/tasks/await.ts",
  "client/tasks/tasks.ts",
  "client/tasks/_inbox.ts",
];

/**
 * The layers a plain client loads only on first use, by the option or method that needs
 * them: governance's pipeline (`tools`/`validate`/`policy`/`hooks`/`pin`), the schema
 * validator, the model adapters' compiler, server tasks (`task` or a task method), the hub's
 * config reader, the OAuth engine, the tracing (`tracer`), the governed client's methods.
 */
const LAZY = [
  // What sends over HTTP: the transport's core behind its shell (the first open), with the
  // recording fetch, the auth forms' runner, the OAuth middleware's shell and the tool
  // headers. A stdio client never loads any of it.
  "transports/_http_core.ts",
  "transports/_http_auth.ts",
  "transports/_tool_headers.ts",
  "oauth/recording_fetch.ts",
  "oauth/lazy_middleware.ts",
  // Governance's shell and compilers: a client checks the options with `governance/check.ts`
  // only, and makes the stages (`create.ts`) when its governed methods load.
  "governance/create.ts",
  "governance/options.ts",
  "governance/filter.ts",
  "governance/glob.ts",
  "governance/hooks.ts",
  "governance/policy.ts",
  "governance/pipeline.ts",
  "governance/_approval.ts",
  "governance/_state.ts",
  "governance/validate.ts",
  "governance/_schema_check.ts",
  "adapters/_kit.ts",
  "adapters/_compile.ts",
  "adapters/_strict.ts",
  "client/tasks/call.ts",
  "client/tasks/await.ts",
  "client/tasks/tasks.ts",
  "client/tasks/_inbox.ts",
  "hub/_config_read.ts",
  "hub/_config_entry.ts",
  "runtime/read_file.ts",
  "oauth/_engine.ts",
  "tracing/tracing.ts",
  "tracing/_scope.ts",
  "client/_client_governance.ts",
  "client/handler/elicitation_defaults.ts",
  "transports/_http_link.ts",
  "runtime/serve.ts",
  // Spilling (a shaped result over budget kept behind a handle), the file store, the stored
  // hub catalogue, the device flow and the sandbox's launcher and planner.
  "client/spill.ts",
  "client/read_result.ts",
  // The hub's stored search index, and the elicitation option's answer rules with the form
  // reader they share with the CLI.
  "hub/_find.ts",
  "hub/_postings.ts",
  "client/handler/answer_rules.ts",
  "protocol/elicitation_form.ts",
  "protocol/elicitation_field.ts",
  "client/_result_search.ts",
  "cache/spill_store.ts",
  "cache/file_store.ts",
  "runtime/files.ts",
  "hub/_stored.ts",
  "oauth/_device.ts",
  "sandbox/launch.ts",
  "sandbox/plan.ts",
  "sandbox/bwrap_args.ts",
  "sandbox/deno_args.ts",
  "sandbox/seccomp.ts",
  // The rounds of input and the handler's answers (the first input request a server sends),
  // the OAuth middleware behind its shell (the first request, login or callback) with its
  // store, login state and callback reader, the client credentials' token client, and the
  // auth error of a 401/403 with the challenge's allow-list (the link, the first refusal).
  "client/requests/_input_rounds.ts",
  "client/handler/answer.ts",
  "oauth/middleware.ts",
  "oauth/store.ts",
  "oauth/auth_status.ts",
  "oauth/handle_callback.ts",
  "oauth/client_credentials.ts",
  "transports/_http_auth_error.ts",
  "transports/challenge_summary.ts",
  "oauth/challenge.ts",
  // The pieced reader of messages past 1 MiB, and the reader of events past 1 MiB.
  "protocol/pieced_json.ts",
  "transports/_sse_long.ts",
  // A shaped call's code (the first call with `shape`, `maxChars` or `spill`), completions
  // (the first `complete()`) and the roots' news (the first `notifyRootsChanged()`).
  "client/_shaped.ts",
  "client/requests/completion.ts",
  "client/requests/roots.ts",
  // Logging in and new credentials (the first `login()` or `setAuth()`).
  "client/_client_login.ts",
  // The legacy inbox of the server's requests behind its shell (the first request but ping),
  // the reader of an `input_required` result and its retry (the first one), and the task
  // rules past a call's options (the task machinery, or a first -32021).
  "client/handler/_server_inbox.ts",
  "protocol/mrtr_rounds.ts",
  "client/tasks/call_rules.ts",
  // The legacy `initialize` handshake (the first legacy server; the fixture is modern).
  "client/connection/_initialize.ts",
  // When an answer of an HTTP status is sent again (the first such answer).
  "client/connection/_status_retry.ts",
  // An HTTP transport's secrets, made when it first opens (or a tracer asks for them), and the
  // token events its core forwards (a stdio transport has none).
  "transports/_http_secrets.ts",
  "protocol/token_events.ts",
];

/**
 * The layers no entry loads with it, which a plain client's run may still load: the
 * subscriptions with the modern listens' shell and the listens, which its notification
 * listener asks for on a modern server (with the wait for shared work they share with the
 * cache); the client's cache with the list and result caches (the result cache with its
 * store guard), which the first full listing, resource read or change of a shared
 * store loads; what names a server for the cache (with the OAuth identity reader), which
 * the cache asks for; listing pagination, which the first listing (or the cache) loads; and
 * the declaring of the tasks extension, which the listens (and the tasks) load.
 */
const START_LAZY = [
  "client/changes/subscriptions.ts",
  "client/changes/_follow.ts",
  "client/changes/_listen.ts",
  "client/changes/cache.ts",
  "cache/list_cache.ts",
  "cache/result_cache.ts",
  "transports/cache_target.ts",
  "oauth/identity.ts",
  "client/requests/pagination.ts",
  "protocol/tasks_extension.ts",
];

/** What only a process can run: an HTTP client (`http.ts`) loads none of it. */
const PROCESS_ONLY = [
  "transports/stdio.ts",
  "transports/_stdio_link.ts",
  "transports/in_process.ts",
  "runtime/spawn.ts",
  "sandbox/profile.ts",
];

/** The lazy layers found in `modules`. */
function lazyIn(modules: readonly string[]): string[] {
  return LAZY.filter((path) => modules.includes(path));
}

for (const entry of ["mod.ts", "http.ts"] as const) {
  test(`budget: ${entry} loads at most ${STATIC_BUDGET[entry]} modules with it, no lazy layer`, () => {
    const modules = staticModules(entry);
    assert(modules.includes("client/client.ts"), `the graph reaches the client: ${modules}`);
    assertEquals(lazyIn(modules), [], `${entry} loads a lazy layer with it`);
    assertEquals(
      START_LAZY.filter((path) => modules.includes(path)),
      [],
      `${entry} loads with it a layer that loads on first use`,
    );
    assert(
      modules.length <= STATIC_BUDGET[entry],
      `${entry} loads ${modules.length} modules with it (budget ${STATIC_BUDGET[entry]})`,
    );
  });

  test(`budget: a plain stdio client under ${entry} loads at most ${LOADED_BUDGET[entry]} modules, no lazy layer`, () => {
    const modules = loadedModules(entry);
    assert(modules.includes("transports/stdio.ts"), `the stdio transport ran: ${modules}`);
    assertEquals(lazyIn(modules), [], `a plain client under ${entry} loads a lazy layer`);
    assert(
      modules.length <= LOADED_BUDGET[entry],
      `a plain client under ${entry} loads ${modules.length} modules (budget ${
        LOADED_BUDGET[entry]
      })`,
    );
  });
}

test("budget: http.ts loads no stdio, in-process, process or sandbox code", () => {
  const modules = staticModules("http.ts");
  assert(modules.includes("transports/streamable_http.ts"), `the graph has HTTP: ${modules}`);
  assertEquals(PROCESS_ONLY.filter((path) => modules.includes(path)), []);
  // …which mod.ts does load, so the check can fail.
  assertEquals(PROCESS_ONLY.filter((path) => !staticModules("mod.ts").includes(path)), []);
});

test("budget: every lazy layer exists and is reachable from an entry, so the checks can fail", () => {
  // The full graph (dynamic imports followed) of the entries (the sub-entries too: the hub's
  // code is reached through `./hub`) does hold each lazy layer.
  const all = new Set<string>();
  for (const entry of ["mod.ts", "http.ts", "hub/mod.ts", "adapters/mod.ts", "oauth/mod.ts"]) {
    for (const path of staticModules(entry, undefined, { dynamic: true })) all.add(path);
  }
  assertEquals([...LAZY, ...START_LAZY].filter((path) => !all.has(path)), []);
});

test(`budget: a plain http.ts connect + call ships at most ${BUNDLE_BUDGET.start} bytes at start`, () => {
  const bundle = startBundle();
  assert(bundle.files.length >= 1 && bundle.all > bundle.start, "some chunks load on first use");
  assert(
    bundle.start <= BUNDLE_BUDGET.start,
    `${bundle.start} bytes minified at start (budget ${BUNDLE_BUDGET.start})`,
  );
  assert(
    bundle.startGzip <= BUNDLE_BUDGET.gzip,
    `${bundle.startGzip} bytes gzipped at start (budget ${BUNDLE_BUDGET.gzip})`,
  );
});

test("budget: a module an entry re-exports but a plain client never uses does not ship at start", () => {
  // `http.ts` re-exports the `x-mcp-header` rules, which the lazy HTTP core uses: without
  // `sideEffects` in package.json, the bundler ships them at start in a chunk of their own.
  assert(!startBundle().code.includes('"x-mcp-header"'), "the header rules ship at start");
  // …and a client that uses them does ship them, so the check can fail.
  const using = bundleSize(
    [
      `import { connect, mcpHeaderDeclarations } from ${
        JSON.stringify(join(ROOT_PATH, "http.ts"))
      };`,
      `console.log(mcpHeaderDeclarations, await connect("http://127.0.0.1:1/mcp"));`,
      "",
    ].join("\n"),
  );
  assert(using.code.includes('"x-mcp-header"'), "the rules ship when used");
});

test("budget: package.json's sideEffects names every script the library holds, and only files", () => {
  const listed = (JSON.parse(readFileSync(join(ROOT_PATH, "package.json"), "utf8")) as {
    sideEffects: string[];
  }).sideEffects;
  for (const path of listed) assert(existsSync(join(ROOT_PATH, path)), `${path} exists`);
  // A module that runs as a program (it asks `import.meta.main`) has effects when imported.
  const skip = /^(node_modules|tests|bench|scripts|dist|out)\//;
  const scripts = (readdirSync(ROOT_PATH, { recursive: true }) as string[])
    .filter((path) => path.endsWith(".ts") && !skip.test(path) && !path.endsWith("_test.ts"))
    .filter((path) => readFileSync(join(ROOT_PATH, path), "utf8").includes("import.meta.main"));
  assert(scripts.includes("cli.ts"), `the CLI is found: ${scripts}`);
  assertEquals(scripts.filter((path) => !listed.includes(`./${path}`)), []);
});

/** A legacy client's call of `tool` on a server that runs tool calls as tasks. */
function legacyTaskServerCall(tool: string, expected: string): string {
  const url = (path: string) => JSON.stringify(pathToFileURL(join(ROOT_PATH, path)).href);
  return `
import { createClient } from ${url("client/client.ts")};
import { inProcess } from ${url("transports/in_process.ts")};
import { createLegacyTasksServer } from ${url("tests/fixtures/legacy_tasks_server.ts")};
const client = createClient({ transport: inProcess(createLegacyTasksServer()), protocol: "legacy" });
await client.ready();
const result = await client.callTool(${JSON.stringify(tool)}, {});
if (result.content?.[0]?.text !== ${JSON.stringify(expected)}) throw new Error("unexpected result");
await client.close();
`;
}

test("budget: a call without task on a legacy server with tool tasks loads the task machinery only for a tool that needs it", () => {
  // An "optional" tool is called plainly: the listing and the rule load, the machinery not.
  const plain = loadedBy(legacyTaskServerCall("opt", "opt direct"));
  assert(plain.includes("client/tasks/call_rules.ts"), `the rule loaded: ${plain}`);
  assertEquals(TASK_MACHINERY.filter((path) => plain.includes(path)), []);
  // A "required" tool runs as a task, so the check can fail.
  const task = loadedBy(legacyTaskServerCall("req", "req task done"));
  assertEquals(TASK_MACHINERY.filter((path) => !task.includes(path)), []);
});

// The hub over in-process mock servers: names, routing, options passed through, isolation
// and restarts, notifications, closing, and misuse.
import { hub } from "../../hub/hub.ts";
import type { Progress } from "../../client/types.ts";
import { mockServer } from "../../testing/mod.ts";
import { isTask } from "../../protocol/tasks.ts";
import { inProcess } from "../../transports/in_process.ts";
import {
  assert,
  assertEquals,
  assertRejects,
  assertStringIncludes,
  assertThrows,
  test,
} from "../_harness.ts";
import { mcpError, waitFor } from "../client/_helpers.ts";
import { breakable, QUICK, toolServer } from "./_helpers.ts";

test("hub: tools of every server under server__tool, each call routed to its owner", async () => {
  const docs = toolServer("docs", ["search", "fetch"]);
  const mail = toolServer("mail", ["send"]);
  await using servers = hub({
    servers: {
      docs: docs.transport(),
      mail: { transport: mail.transport(), requestTimeout: 5_000 },
    },
  });
  await servers.ready();
  const tools = await servers.listAllTools();
  assertEquals(tools.map((t) => t.name), ["docs__search", "docs__fetch", "mail__send"]);
  assertEquals(tools[2].description, "The send tool of mail");
  const progress: Progress[] = [];
  const result = await servers.callTool("mail__send", { to: "a" }, {
    onProgress: (p) => progress.push(p),
  });
  assertEquals(result.content[0].text, "mail:send");
  assertEquals(progress.map((p) => p.message), ["half"]);
  const call = mail.requests.find((r) => r.method === "tools/call");
  assertEquals(call?.params.name, "send");
  assertEquals(call?.params.arguments, { to: "a" });
  assertEquals(docs.requests.filter((r) => r.method === "tools/call").length, 0);
  assertEquals(servers.resolveTool("docs__fetch"), { server: "docs", name: "fetch" });
  assertEquals(servers.serverNames(), ["docs", "mail"]);
  assertEquals(servers.status().servers.docs.state, "ready");
  assertEquals(servers.status().servers.docs.era, "modern");
});

test("hub: a call routes by its prefix before any listing; unknown names are not_found", async () => {
  await using servers = hub({
    servers: { a: toolServer("a", ["x"]).transport() },
    separator: ".",
  });
  assertEquals((await servers.callTool("a.x")).content[0].text, "a:x");
  const unknown = await mcpError(servers.callTool("b.x"));
  assertEquals([unknown.kind, unknown.reason], ["not_found", "unknown_tool"]);
  const server = await mcpError(servers.listAllPrompts().then(() => servers.getPrompt("a.none")));
  assertEquals(server.kind, "server");
});

test("hub: collisions keep the first server's name, get a prefix or _2, and are reported", async () => {
  const warnings: string[] = [];
  const make = (prefix: boolean) =>
    hub({
      servers: {
        one: toolServer("one", ["echo", "b__c"]).transport(),
        oneb: toolServer("oneb", ["c"]).transport(),
        two: toolServer("two", ["echo", "two__echo"]).transport(),
      },
      prefix,
      onWarning: (w) => warnings.push(w),
    });
  await using prefixed = make(true);
  const names = (await prefixed.listAllTools()).map((t) => t.name);
  assertEquals(names, ["one__echo", "one__b__c", "oneb__c", "two__echo", "two__two__echo"]);
  assertEquals(prefixed.status().collisions, []);
  assertEquals((await prefixed.callTool("one__b__c")).content[0].text, "one:b__c");

  await using bare = make(false);
  const bareNames = (await bare.listAllTools()).map((t) => t.name);
  assertEquals(bareNames, ["echo", "b__c", "c", "echo_2", "two__echo"]);
  assertEquals(bare.status().collisions, [
    { kind: "tool", name: "echo", server: "two", original: "echo", resolvedAs: "echo_2" },
  ]);
  assertEquals((await bare.callTool("echo_2")).content[0].text, "two:echo");
  assertEquals((await bare.callTool("two__echo")).content[0].text, "two:two__echo");
  assertEquals((await bare.callTool("echo")).content[0].text, "one:echo");
  assert(warnings.some((w) => w.includes('"echo"') && w.includes("echo_2")));
  // Servers `one` and `one__b` would both claim `one__b__c`.
  assertThrows(
    () =>
      hub({
        servers: {
          one: toolServer("one", []).transport(),
          one__b: toolServer("b", []).transport(),
        },
      }),
    TypeError,
  );
});

test("hub: many renamed collisions are one warning naming a few, not one per tool", async () => {
  const warnings: string[] = [];
  const names = ["a", "b", "c", "d", "e"];
  await using servers = hub({
    servers: {
      one: toolServer("one", names).transport(),
      two: toolServer("two", names).transport(),
    },
    prefix: false,
    onWarning: (w) => warnings.push(w),
  });
  const listed = (await servers.listAllTools()).map((t) => t.name);
  assertEquals(listed, ["a", "b", "c", "d", "e", "two__a", "two__b", "two__c", "two__d", "two__e"]);
  assertEquals(servers.status().collisions.length, 5);
  const about = warnings.filter((w) => w.includes("more than one server"));
  assertEquals(about, [
    '5 tools are listed by more than one server: server "two"\'s "a" is "two__a", server "two"\'s ' +
    '"b" is "two__b", server "two"\'s "c" is "two__c", and 2 more (status().collisions lists them all)',
  ]);
  // Listed again: nothing new, no new warning.
  await servers.listAllTools({ refresh: true });
  assertEquals(warnings.filter((w) => w.includes("more than one server")).length, 1);
});

test("hub: a server that fails to start is reported, fails its own calls, others go on; it is restarted", async () => {
  const broken = breakable(toolServer("flaky", ["ping"]).transport());
  const warnings: string[] = [];
  await using servers = hub({
    servers: { good: toolServer("good", ["echo"]).transport(), flaky: broken },
    // Long enough that the checks below run while it waits (a restart is a short "connecting").
    reconnect: { initialDelay: 1_500, maxDelay: 1_500, jitter: 0 },
    onWarning: (w) => warnings.push(w),
  });
  await servers.ready();
  const waiting = servers.status().servers.flaky;
  assertEquals(waiting.state, "waiting");
  assertEquals(servers.status().servers.good.state, "ready");
  assertEquals((await servers.listAllTools()).map((t) => t.name), ["good__echo"]);
  assertEquals((await servers.callTool("good__echo")).content[0].text, "good:echo");
  assertEquals([waiting.error?.kind, waiting.error?.reason], ["transport", "command_not_found"]);
  assert(typeof waiting.nextRetry === "number" && waiting.restarts === 1);
  const error = await mcpError(servers.callTool("flaky__ping"));
  assertEquals([error.kind, error.reason], ["unavailable", "server_unavailable"]);
  assertStringIncludes(error.message, 'Server "flaky"');
  assertEquals((error.cause as { reason?: string }).reason, "command_not_found");
  assert(warnings.some((w) => w.includes('Server "flaky" failed (transport/command_not_found)')));
  // Mended: the next restart brings it up.
  broken.broken = false;
  await waitFor(() => servers.status().servers.flaky.state === "ready", "flaky ready", 5_000);
  assertEquals(servers.status().servers.flaky.restarts, 0);
  assertEquals((await servers.callTool("flaky__ping")).content[0].text, "flaky:ping");
  assert(broken.opens >= 2);
});

test("hub: a server whose client gives up is restarted by the hub; reconnect false leaves it failed", async () => {
  const server = toolServer("s", ["t"]);
  const warnings: string[] = [];
  await using servers = hub({
    servers: { s: { transport: server.transport(), reconnect: false } },
    reconnect: QUICK,
    onWarning: (w) => warnings.push(w),
  });
  await servers.ready();
  assertEquals((await servers.callTool("s__t")).content[0].text, "s:t");
  server.dropAll();
  await waitFor(() => warnings.some((w) => w.includes('Server "s" failed')), "the failure");
  assertStringIncludes(warnings.join("\n"), "restart 1 in 5 ms");
  await waitFor(
    () => server.open() > 0 && servers.status().servers.s.state === "ready",
    "back",
    5_000,
  );
  assertEquals((await servers.callTool("s__t")).content[0].text, "s:t");

  const never = breakable(toolServer("n", []).transport());
  await using stuck = hub({ servers: { n: never }, reconnect: false });
  await stuck.ready();
  assertEquals(stuck.status().servers.n.state, "failed");
  assertEquals(never.opens, 1);
});

test("hub: prompts by hub name, resources by URI and template, not_found otherwise", async () => {
  const a = mockServer({
    prompts: [{ name: "greet", handler: (args) => `Hello, ${args.name}` }],
    resources: [{ uri: "file:///a.txt", text: "A" }, { uri: "file:///shared.txt", text: "from a" }],
  });
  const b = mockServer({
    resources: [{ uri: "file:///shared.txt", text: "from b" }],
    templates: [{ uriTemplate: "item://{id}", read: (_uri, vars) => `item ${vars.id}` }],
  });
  await using servers = hub({ servers: { a: a.transport(), b: b.transport() } });
  assertEquals((await servers.listAllPrompts()).map((p) => p.name), ["a__greet"]);
  const prompt = await servers.getPrompt("a__greet", { name: "Ada" });
  assertEquals(prompt.messages[0].content.text, "Hello, Ada");
  // Read before any listing: the hub lists to find the owner.
  assertEquals((await servers.readResource("item://42")).contents[0].text, "item 42");
  assertEquals((await servers.readResource("file:///shared.txt")).contents[0].text, "from a");
  const uris = (await servers.listAllResources()).map((r) => r.uri);
  assertEquals(uris, ["file:///a.txt", "file:///shared.txt"]);
  assertEquals(servers.status().collisions, [
    { kind: "resource", name: "file:///shared.txt", server: "b", original: "file:///shared.txt" },
  ]);
  assertEquals((await servers.listAllResourceTemplates()).map((t) => t.uriTemplate), [
    "item://{id}",
  ]);
  const missing = await mcpError(servers.readResource("file:///nope"));
  assertEquals([missing.kind, missing.reason], ["not_found", "unknown_resource"]);
  const prompt404 = await mcpError(servers.getPrompt("nope"));
  assertEquals([prompt404.kind, prompt404.reason], ["not_found", "unknown_prompt"]);
});

test("hub: notifications carry the server's name, to listeners and iterators", async () => {
  const a = toolServer("a", ["x"]);
  const b = toolServer("b", ["y"]);
  await using servers = hub({ servers: { a: a.transport(), b: b.transport() } });
  await servers.ready();
  const heard: string[] = [];
  const off = servers.subscribeNotifications((n) => heard.push(`${n.server} ${n.method}`));
  const controller = new AbortController();
  const iterated = (async () => {
    for await (const n of servers.notifications({ signal: controller.signal })) return n;
    return undefined;
  })();
  await servers.listAllTools();
  // The clients follow list changes once listening: wait until b's listen asked for them.
  await waitFor(() => b.changeList("tools") > 0, "b's listen", 5_000);
  await waitFor(() => heard.includes("b notifications/tools/list_changed"), "b's change", 5_000);
  const first = await iterated;
  assertEquals([first?.server, first?.method], ["b", "notifications/tools/list_changed"]);
  off();
  controller.abort();
});

test("hub: close() closes every server, calls then fail with kind closed, and `await using` works", async () => {
  const a = toolServer("a", ["x"]);
  const servers = hub({ servers: { a: a.transport(), b: toolServer("b", []).transport() } });
  await servers.ready();
  assertEquals(a.open(), 1);
  await servers.close();
  assertEquals(a.open(), 0);
  assertEquals(servers.status().servers.a.state, "closed");
  const error = await mcpError(servers.callTool("a__x"));
  assertEquals(error.kind, "closed");
  const ended = servers.notifications();
  assertEquals((await ended.next()).done, true);
  {
    await using scoped = hub({ servers: { a: a.transport() } });
    await scoped.ready();
    assertEquals(a.open(), 1);
  }
  assertEquals(a.open(), 0);
});

test("hub: bad options and entries are TypeErrors naming the key or the server", async () => {
  const transport = toolServer("a", []).transport();
  assertThrows(() => hub({ servers: {}, prefx: true } as never), TypeError, '"prefx"');
  assertThrows(() => hub({ servers: { a: transport }, separator: "" }), TypeError, "separator");
  assertThrows(() => hub({ servers: { bad: 42 as never } }), TypeError, "hub servers.bad");
  assertThrows(() => hub({ servers: { x: { args: [] } as never } }), TypeError, "servers.x needs");
  assertThrows(() => hub({ servers: { u: "ftp://host/x" } }), TypeError, "servers.u.url");
  // A name that begins with another's and the separator: both would claim its tools' names.
  const shadowing = (servers: string[], separator?: string) => () =>
    hub({ servers: Object.fromEntries(servers.map((n) => [n, transport])), separator });
  assertThrows(
    shadowing(["a__b", "x", "a"]),
    TypeError,
    `hub servers.a__b: a server name must not begin with another's ("a") and the separator "__"`,
  );
  assertThrows(shadowing(["gh", "gh--x--y"], "--"), TypeError, `another's ("gh")`);
  assertThrows(shadowing(["a__b", "a__b__c"]), TypeError, `another's ("a__b")`);
  assertThrows(
    () => hub({ servers: { s: { command: "node", requestTimeot: 5 } as never } }),
    TypeError,
    "servers.s",
  );
  // A misspelt key names the entry and the nearest right key, for either kind of entry.
  assertThrows(
    () => hub({ servers: { github: { comand: "node", args: [] } as never } }),
    TypeError,
    'hub servers.github: Unknown option "comand" in this server entry (did you mean "command"?)',
  );
  assertThrows(
    () => hub({ servers: { files: { command: "node", stderrr: "inherit" } as never } }),
    TypeError,
    'hub servers.files: Unknown option "stderrr" in this stdio entry (did you mean "stderr"?)',
  );
  assertThrows(
    () => hub({ servers: { web: { url: "http://127.0.0.1:1/mcp", header: {} } as never } }),
    TypeError,
    'hub servers.web: Unknown option "header" in this url entry (did you mean "headers"?)',
  );
  assertThrows(
    () => hub({ servers: { s2: { command: "node", requestTimeot: 5 } as never } }),
    TypeError,
    '(did you mean "requestTimeout"?)',
  );
  assertThrows(
    () => hub({ servers: { t: { command: "node", type: "http" } as never } }),
    TypeError,
    "type must be",
  );
  assertThrows(() => hub({ servers: { a: transport }, reconnect: { initalDelay: 1 } } as never));
  await using servers = hub({ servers: { a: transport } });
  await assertRejects(() => servers.callTool(""), TypeError);
  const unknown = (() => {
    try {
      servers.client("zzz");
    } catch (error) {
      return error as { kind?: string; reason?: string };
    }
    return undefined;
  })();
  assertEquals([unknown?.kind, unknown?.reason], ["not_found", "unknown_server"]);
});

test("hub: a task a call started is awaited, read and cancelled through the server that runs it", async () => {
  const worker = mockServer({
    tools: [{ name: "long", task: "required", handler: () => "done" }],
    tasks: { pollIntervalMs: 5 },
  });
  await using servers = hub({
    servers: { other: toolServer("other", ["x"]).transport(), worker: worker.transport() },
  });
  const started = await servers.callTool("worker__long", {}, { task: "return" });
  assert(isTask(started), "a task");
  assertEquals((await servers.getTask(started.taskId)).taskId, started.taskId);
  const result = await servers.awaitTask(started, { timeout: 10_000 });
  assertEquals(result.content[0].text, "done");
  assertEquals((await servers.cancelTask(started)).status, "completed");
  const unknown = await mcpError(servers.getTask("nope"));
  assertEquals([unknown.kind, unknown.reason], ["not_found", "unknown_task"]);
});

test("hub: ready(timeout) gives up with kind timeout on a server that never answers; the others are ready", async () => {
  const silent = inProcess({ connect: () => ({ receive() {} }) });
  await using servers = hub({
    servers: {
      quick: toolServer("quick", ["x"]).transport(),
      silent: { transport: silent, requestTimeout: 60_000, probeTimeout: 60_000 },
    },
  });
  const error = await mcpError(servers.ready(100));
  assertEquals(error.kind, "timeout");
  assertEquals(servers.status().servers.quick.state, "ready");
  assertEquals(servers.status().servers.silent.state, "connecting");
  await assertRejects(() => servers.ready(-1), TypeError);
});

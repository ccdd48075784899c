// The subscriptions loaded on first use (`client/changes/_subscriptions_lazy.ts`): lists
// followed before they load are handed to them, and what arrives while they load (a followed
// list, a close) is replayed in order once they are in.
import { lazySubscriptions } from "../../client/changes/_subscriptions_lazy.ts";
import type { SubscriptionDeps } from "../../client/changes/subscriptions.ts";
import type { JsonObject } from "../../protocol/jsonrpc.ts";
import { TASKS_EXTENSION } from "../../protocol/meta.ts";
import { assert, assertEquals, test } from "../_harness.ts";

interface Opened {
  notifications: JsonObject;
  signal: AbortSignal;
}

/** Subscriptions over a fake modern connection that records each listen it opens. */
function harness(capabilities: JsonObject = { tools: { listChanged: true } }) {
  const opened: Opened[] = [];
  const warnings: string[] = [];
  let state = "connecting";
  let next = 1;
  const deps = {
    connection: {
      status: () => ({ state }),
      serverInfo: () => ({ era: "modern", capabilities }),
      ready: () => Promise.resolve(),
      request: () => Promise.reject(new Error("no requests in these tests")),
      stream(
        _method: string,
        params: JsonObject,
        options: { signal: AbortSignal; onId(id: number): void },
      ) {
        options.onId(next++);
        opened.push({ notifications: params.notifications as JsonObject, signal: options.signal });
        return new Promise<void>((resolve) =>
          options.signal.addEventListener("abort", () => resolve(), { once: true })
        );
      },
    },
    requestTimeout: 1_000,
    reopenDelay: () => 1_000,
    warn: (message: string) => warnings.push(message),
  } as unknown as SubscriptionDeps;
  return {
    subs: lazySubscriptions(deps),
    opened,
    warnings,
    ready: () => state = "ready",
  };
}

const turn = () => new Promise((resolve) => setTimeout(resolve, 10));
const open = (opened: Opened[]) => opened.filter((listen) => !listen.signal.aborted);

test("lazy subscriptions: lists followed before ready are asked for once the server is", async () => {
  const { subs, opened, ready } = harness({
    tools: { listChanged: true },
    prompts: { listChanged: true },
  });
  subs.followLists(["tools", "prompts"]);
  await turn();
  assertEquals(opened.length, 0, "nothing opens before the connection is ready");
  assertEquals(subs.uris(), []);
  ready();
  subs.ready({ era: "modern", renewed: false });
  while (open(opened).length === 0) await turn();
  assertEquals(open(opened)[0].notifications, { toolsListChanged: true, promptsListChanged: true });
  subs.close();
  assertEquals(open(opened).length, 0, "close() ends the listen");
});

test("lazy subscriptions: a list followed while they load is not lost", async () => {
  const { subs, opened, ready } = harness({
    tools: { listChanged: true },
    resources: { listChanged: true },
  });
  ready();
  subs.followLists(["tools"]); // loads them
  subs.followLists(["resources"]); // while they load
  for (let i = 0; i < 100; i++) {
    const last = open(opened).at(-1)?.notifications;
    if (last?.resourcesListChanged === true) break;
    await turn();
  }
  assertEquals(open(opened).at(-1)?.notifications, {
    toolsListChanged: true,
    resourcesListChanged: true,
  });
  subs.close();
});

test("lazy subscriptions: a close() while they load holds: no listen stays open", async () => {
  const { subs, opened, ready } = harness();
  ready();
  subs.followLists(["tools"]); // loads them, and would open a listen
  subs.close(); // while they load
  await turn();
  await turn();
  assertEquals(open(opened).length, 0);
  // A new connection revives them, and they listen again.
  subs.ready({ era: "modern", renewed: false });
  while (open(opened).length === 0) await turn();
  assertEquals(open(opened)[0].notifications, { toolsListChanged: true });
  subs.close();
});

test("lazy subscriptions: a task's news is followed only where the server declares tasks", async () => {
  const plain = harness();
  plain.ready();
  assertEquals(plain.subs.followTask("t1"), undefined);
  const tasks = harness({ extensions: { [TASKS_EXTENSION]: {} } });
  assertEquals(tasks.subs.followTask("t1"), undefined, "not before the connection is ready");
  tasks.ready();
  const undo = tasks.subs.followTask("t1");
  assert(undo !== undefined, "followed");
  while (open(tasks.opened).length === 0) await turn();
  assertEquals(open(tasks.opened)[0].notifications, { taskIds: ["t1"] });
  undo();
  for (let i = 0; i < 100 && open(tasks.opened).length > 0; i++) await turn();
  assertEquals(open(tasks.opened).length, 0, "the undo closes the only listen");
  tasks.subs.close();
});

// The modern listens loaded on first use (`client/changes/subscriptions.ts`): nothing opens and
// nothing is routed before a listen is wanted, calls made while the listens load run in call
// order once they are in, and a close() in between holds.
import { lazyListens } from "../../client/changes/subscriptions.ts";
import type { ListenDeps, ListenFilter } from "../../client/changes/_listen_types.ts";
import type { JsonObject, JsonRpcId, JsonRpcNotification } from "../../protocol/jsonrpc.ts";
import { META_SUBSCRIPTION_ID } from "../../protocol/meta.ts";
import { assert, assertEquals, test } from "../_harness.ts";

interface Opened {
  params: JsonObject | undefined;
  id: JsonRpcId;
  signal: AbortSignal;
}

/** Listens over a fake connection that records every `subscriptions/listen` it opens. */
function harness(filter: ListenFilter) {
  const opened: Opened[] = [];
  const warnings: string[] = [];
  let next = 1;
  const deps = {
    connection: {
      status: () => ({ state: "ready" }),
      stream(
        _method: string,
        params: JsonObject | undefined,
        options: { signal: AbortSignal; onId(id: JsonRpcId): void },
      ) {
        const id = next++;
        options.onId(id);
        opened.push({ params, id, signal: options.signal });
        // The stream ends when the listen is aborted (replaced or closed).
        return new Promise<void>((resolve) =>
          options.signal.addEventListener("abort", () => resolve(), { once: true })
        );
      },
    },
    filter: () => filter,
    requestTimeout: 1_000,
    reopenDelay: () => 1_000,
    warn: (message: string) => warnings.push(message),
  } as unknown as ListenDeps;
  return { listens: lazyListens(deps), opened, warnings };
}

function acknowledged(id: JsonRpcId, uris: string[]): JsonRpcNotification {
  return {
    jsonrpc: "2.0",
    method: "notifications/subscriptions/acknowledged",
    params: {
      _meta: { [META_SUBSCRIPTION_ID]: id },
      notifications: { resourceSubscriptions: uris },
    },
  };
}

const turn = () => new Promise((resolve) => setTimeout(resolve, 10));

test("lazy listens: nothing opens and nothing is routed before a listen is wanted", async () => {
  const { listens, opened } = harness({ uris: [], lists: [] });
  const update: JsonRpcNotification = {
    jsonrpc: "2.0",
    method: "notifications/resources/updated",
    params: { uri: "test://a", _meta: { [META_SUBSCRIPTION_ID]: 1 } },
  };
  assertEquals(listens.route(update), false);
  assertEquals(listens.route(acknowledged(1, [])), false);
  listens.ready("modern"); // nothing wanted: nothing loads, nothing opens
  listens.close();
  await turn();
  assertEquals(opened.length, 0);
});

test("lazy listens: a wanted listen loads, opens and is acknowledged; its messages are routed", async () => {
  const { listens, opened } = harness({ uris: ["test://a"], lists: [] });
  const syncing = listens.resync(1_000);
  while (opened.length === 0) await turn();
  assertEquals(opened[0].params, { notifications: { resourceSubscriptions: ["test://a"] } });
  assert(listens.route(acknowledged(opened[0].id, ["test://a"])), "the acknowledgment is theirs");
  const listen = await syncing;
  assertEquals([...listen?.acked ?? []], ["test://a"]);
  // The listen in force speaks to the listeners; the listens keep only their own messages.
  const update: JsonRpcNotification = {
    jsonrpc: "2.0",
    method: "notifications/resources/updated",
    params: { uri: "test://a", _meta: { [META_SUBSCRIPTION_ID]: opened[0].id } },
  };
  assertEquals(listens.route(update), false);
  listens.close();
  assert(opened[0].signal.aborted, "close() ends the listen");
});

test("lazy listens: a close() while they load holds: the listen wanted before it never opens", async () => {
  const { listens, opened } = harness({ uris: ["test://a"], lists: [] });
  const syncing = listens.resync(1_000);
  listens.close();
  assertEquals(await syncing, undefined);
  await turn();
  assertEquals(opened.length, 0);
  // A reconnect revives them, and they listen again.
  listens.ready("modern");
  while (opened.length === 0) await turn();
  assert(listens.route(acknowledged(opened[0].id, ["test://a"])));
  listens.close();
});

test("lazy listens: closed before they ever load, they load closed: a resync opens nothing", async () => {
  const { listens, opened } = harness({ uris: ["test://a"], lists: [] });
  listens.close();
  assertEquals(await listens.resync(1_000), undefined);
  await turn();
  assertEquals(opened.length, 0);
});

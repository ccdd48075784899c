import { assertEquals, test } from "../_harness.ts";
import { createNotificationHub, ITERATOR_BUFFER } from "../../client/changes/notifications.ts";
import type { ServerNotification } from "../../client/types.ts";
import { fixtureClient } from "./_helpers.ts";

test("subscribeNotifications receives server notifications until unsubscribed", async () => {
  const { client } = fixtureClient({ mode: "legacy-only" });
  await using _ = client;
  const seen: ServerNotification[] = [];
  const unsubscribe = client.subscribeNotifications((n) => seen.push(n));
  await client.callTool("notify");
  assertEquals(seen, [{ method: "notifications/tools/list_changed", params: {} }]);
  unsubscribe();
  await client.callTool("notify");
  assertEquals(seen.length, 1);
});

test("progress goes to onProgress, not to notification listeners", async () => {
  const { client } = fixtureClient();
  await using _ = client;
  const seen: string[] = [];
  client.subscribeNotifications((n) => seen.push(n.method));
  let progress = 0;
  await client.callTool("slow", { ms: 20, steps: 2 }, { onProgress: () => progress++ });
  assertEquals(progress, 2);
  assertEquals(seen, []);
});

test("a throwing listener is reported and the others still run", async () => {
  const { client, warnings } = fixtureClient({ mode: "legacy-only" });
  await using _ = client;
  let calls = 0;
  client.subscribeNotifications(() => {
    throw new Error("listener bug");
  });
  client.subscribeNotifications(() => calls++);
  await client.callTool("notify");
  assertEquals(calls, 1);
  assertEquals(warnings.some((w) => w.includes("listener bug")), true);
});

test("notifications() iterates until its signal aborts", async () => {
  const { client } = fixtureClient({ mode: "legacy-only" });
  await using _ = client;
  await client.ready();
  const controller = new AbortController();
  const iterator = client.notifications({ signal: controller.signal });
  await client.callTool("notify");
  await client.callTool("notify");
  const methods: string[] = [];
  for await (const notification of iterator) {
    methods.push(notification.method);
    if (methods.length === 2) controller.abort();
  }
  assertEquals(methods, ["notifications/tools/list_changed", "notifications/tools/list_changed"]);
  assertEquals(await iterator.next(), { done: true, value: undefined });
});

test("notifications() ends when the client closes, after what it buffered", async () => {
  const { client } = fixtureClient({ mode: "legacy-only" });
  await client.ready();
  const iterator = client.notifications();
  await client.callTool("notify");
  const pending = (async () => {
    const methods: string[] = [];
    for await (const n of iterator) methods.push(n.method);
    return methods;
  })();
  await client.close();
  assertEquals(await pending, ["notifications/tools/list_changed"]);
});

test("the hub: break ends an iterator, an aborted signal gives an empty one, the buffer is bounded", async () => {
  const warnings: string[] = [];
  const hub = createNotificationHub((w) => warnings.push(w));
  const iterator = hub.iterate();
  hub.publish({ method: "a", params: {} });
  for await (const n of iterator) {
    assertEquals(n.method, "a");
    break;
  }
  hub.publish({ method: "b", params: {} });
  assertEquals(await iterator.next(), { done: true, value: undefined });
  const aborted = hub.iterate({ signal: AbortSignal.abort() });
  assertEquals(await aborted.next(), { done: true, value: undefined });
  const slow = hub.iterate();
  for (let i = 0; i <= ITERATOR_BUFFER; i++) hub.publish({ method: `m${i}`, params: {} });
  assertEquals((await slow.next()).value?.method, "m1");
  assertEquals(warnings.length, 1);
});

test("the hub: concurrent next() calls each settle, in order, and end() settles the rest", async () => {
  const hub = createNotificationHub(() => {});
  const iterator = hub.iterate();
  const first = iterator.next();
  const second = iterator.next();
  const third = iterator.next();
  hub.publish({ method: "a", params: {} });
  assertEquals(await first, { done: false, value: { method: "a", params: {} } });
  hub.end();
  assertEquals(await second, { done: true, value: undefined });
  assertEquals(await third, { done: true, value: undefined });
});

test("the hub: return() settles every pending next()", async () => {
  const hub = createNotificationHub(() => {});
  const iterator = hub.iterate();
  const pending = [iterator.next(), iterator.next()];
  await iterator.return!();
  assertEquals(await Promise.all(pending), [
    { done: true, value: undefined },
    { done: true, value: undefined },
  ]);
});

test("notifications(): two waiting next() calls both end when the client closes", async () => {
  const { client } = fixtureClient({ mode: "legacy-only" });
  await client.ready();
  const iterator = client.notifications();
  const pending = [iterator.next(), iterator.next()];
  await client.close();
  assertEquals(await Promise.all(pending), [
    { done: true, value: undefined },
    { done: true, value: undefined },
  ]);
});

test("notifications() made after close() is over at once; after reconnect() it iterates again", async () => {
  const { client } = fixtureClient({ mode: "legacy-only" });
  await client.ready();
  await client.close();
  const late = client.notifications();
  assertEquals(await late.next(), { done: true, value: undefined });
  await client.reconnect();
  const revived = client.notifications();
  const next = revived.next();
  await client.callTool("notify");
  assertEquals((await next).value?.method, "notifications/tools/list_changed");
  await client.close();
  assertEquals(await revived.next(), { done: true, value: undefined });
});

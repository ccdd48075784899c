// Byte bounds (issue 24, item 16): the memory store, a notification iterator's buffer and
// the pages of one listing are bounded in bytes as well as in entries.
import { createNotificationHub } from "../../client/changes/notifications.ts";
import { memoryStore } from "../../cache/memory.ts";
import { assert, assertEquals, assertThrows, test } from "../_harness.ts";
import { mcpError } from "../client/_helpers.ts";
import { governed, server } from "../governance/_helpers.ts";

test("item 16: the memory store drops the least recently used entries past maxBytes", async () => {
  const store = memoryStore({ maxBytes: 10_000 });
  for (let i = 0; i < 20; i++) await store.set([`k${i}`], "x".repeat(1_000), 60_000);
  let kept = 0;
  for (let i = 0; i < 20; i++) if (await store.get([`k${i}`]) !== undefined) kept++;
  assert(kept >= 5 && kept < 10, `about 10 000 bytes kept: ${kept} entries`);
  assertEquals(await store.get(["k19"]), "x".repeat(1_000), "the newest is kept");
  await store.set(["huge"], "x".repeat(20_000), 60_000);
  assertEquals(await store.get(["huge"]), undefined, "an entry over the bound is not kept");
  assertEquals(await store.get(["k19"]), "x".repeat(1_000), "and pushes nothing out");
  assertThrows(() => memoryStore({ maxBytes: 0 }), TypeError, "maxBytes");
});

test("item 16: the memory store's default bound is 32 MiB", async () => {
  const store = memoryStore();
  const big = "x".repeat(8 * 1024 * 1024);
  for (let i = 0; i < 5; i++) await store.set([`k${i}`], big, 60_000);
  assertEquals(await store.get(["k0"]) === undefined, true, "40 MiB do not fit");
  assertEquals(await store.get(["k4"]) === big, true, "the newest is kept");
});

test("item 16: a notifications() iterator buffers at most 4 MiB, dropping the oldest", async () => {
  const warnings: string[] = [];
  const hub = createNotificationHub<{ method: string; params: { blob: string; n: number } }>(
    (w) => warnings.push(w),
  );
  const iterator = hub.iterate();
  const blob = "x".repeat(100 * 1024);
  for (let n = 0; n < 100; n++) hub.publish({ method: "m", params: { blob, n } });
  hub.end();
  const got: number[] = [];
  for await (const notification of iterator) got.push(notification.params.n);
  assert(got.length > 30 && got.length <= 41, `about 4 MiB buffered: ${got.length}`);
  assertEquals(got.at(-1), 99, "the newest kept");
  assert(warnings.length > 0, "the drop is reported");
});

test("item 16: a listing whose pages add up to more than 16 MiB is refused", async () => {
  const description = "d".repeat(64 * 1024);
  const mock = server({
    pageSize: 50,
    tools: Array.from({ length: 300 }, (_, i) => ({ name: `t${i}`, description })),
  });
  await using client = governed(mock, {});
  const error = await mcpError(client.listAllTools());
  assertEquals([error.kind, error.reason], ["pagination_cycle", "listing_too_large"]);
});

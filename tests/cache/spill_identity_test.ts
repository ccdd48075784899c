// Handles of spilled results are bound to the identity they were made for: the credentials
// (as the cache names them) and the principal. Another principal, another credential, or the
// same client after setAuth to other credentials reads not_found, never the result; the same
// identity reads it from another client sharing the store. On the memory store, a real Deno KV
// file (under Deno) and a real redis-server; an expired handle says so.
import { connectClient } from "../../client/client.ts";
import type { McpClient } from "../../client/types.ts";
import { memoryStore } from "../../cache/memory.ts";
import { denoKvStore } from "../../cache/deno_kv.ts";
import { redisStore } from "../../cache/redis.ts";
import type { CacheStore } from "../../cache/store.ts";
import { isMcpError } from "../../protocol/errors.ts";
import { streamableHttp } from "../../transports/streamable_http.ts";
import { assert, assertEquals, test } from "../_harness.ts";
import { startHttpFixture } from "../fixtures/http_server.ts";
import { FAST } from "../client/_helpers.ts";
import { startRedis } from "./_redis.ts";
import { withKv } from "./_kv.ts";

const BIG = Array.from({ length: 400 }, (_, i) => `secret line ${i}`).join("\n");

async function reason(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    assert(isMcpError(error), `an McpError: ${error}`);
    assertEquals(error.kind, "not_found");
    assert(!error.message.includes("secret"), "the error holds nothing of the result");
    return error.reason ?? "";
  }
  throw new Error("expected a rejection");
}

async function spillOne(client: McpClient, principal?: string): Promise<string> {
  const shaped = await client.callTool("echo", { message: BIG }, {
    shape: "llm",
    maxChars: 400,
    ...(principal === undefined ? {} : { principal }),
  });
  assert(shaped.spilled !== undefined, "spilled");
  assert(shaped.text.length <= 400);
  return shaped.spilled.handle;
}

async function isolation(kind: string, store: CacheStore) {
  await using fixture = await startHttpFixture();
  const connect = (credentialId: string | undefined) =>
    connectClient({
      transport: streamableHttp(fixture.url, {
        auth: () => "token",
        ...(credentialId === undefined ? {} : { credentialId }),
      }),
      reconnect: FAST,
      shape: { spill: store },
    });
  await using alice = await connect("alice");
  const handle = await spillOne(alice, "p1");
  const page = await alice.readResult(handle, { principal: "p1", length: 1_000_000 });
  assertEquals(page.text, BIG, `${kind}: the same identity reads it whole`);

  // Another principal, or none, on the same credentials: not found.
  assertEquals(await reason(alice.readResult(handle, { principal: "p2" })), "unknown_result");
  assertEquals(await reason(alice.readResult(handle)), "unknown_result");

  // Another client with the same credentials shares the store: it reads it.
  await using again = await connect("alice");
  assertEquals((await again.readResult(handle, { principal: "p1" })).total, BIG.length, kind);
  // Other credentials: not found.
  await using bob = await connect("bob");
  assertEquals(await reason(bob.readResult(handle, { principal: "p1" })), "unknown_result");
  // A guessed handle of the same form: not found.
  const guessed = handle.slice(0, -2) + (handle.endsWith("AA") ? "AB" : "AA");
  assertEquals(await reason(alice.readResult(guessed, { principal: "p1" })), "unknown_result");

  // setAuth to other credentials: the old identity's handles are out of reach.
  await alice.setAuth(() => "token-2", { credentialId: "bob" });
  assertEquals(await reason(alice.readResult(handle, { principal: "p1" })), "unknown_result");
  const bobs = await spillOne(alice, "p1");
  assertEquals((await bob.readResult(bobs, { principal: "p1" })).total, BIG.length, kind);
  await alice.setAuth(() => "token", { credentialId: "alice" });
  assertEquals((await alice.readResult(handle, { principal: "p1" })).total, BIG.length, kind);

  // Credentials the cache cannot name: this client's own until setAuth.
  await using anonymous = await connect(undefined);
  const own = await spillOne(anonymous);
  assertEquals((await anonymous.readResult(own)).total, BIG.length, kind);
  await using other = await connect(undefined);
  assertEquals(await reason(other.readResult(own)), "unknown_result");
  await anonymous.setAuth(() => "token");
  assertEquals(await reason(anonymous.readResult(own)), "unknown_result");

  // An expired handle says it expired.
  await using brief = await connectClient({
    transport: streamableHttp(fixture.url, { auth: () => "token", credentialId: "alice" }),
    reconnect: FAST,
    shape: { spill: { store, ttlMs: 100 } },
  });
  const soon = await spillOne(brief, "p1");
  await new Promise((resolve) => setTimeout(resolve, 250));
  assertEquals(await reason(brief.readResult(soon, { principal: "p1" })), "result_expired");
}

test("spill identity: principals and setAuth, on the memory store", () =>
  isolation("memory", memoryStore()));

test("spill identity: principals and setAuth, on a real redis-server", async () => {
  const redis = await startRedis();
  try {
    const client = await redis.client();
    await isolation("redis", redisStore(client.command, { prefix: "spill-test" }));
  } finally {
    await redis.close();
  }
});

test("spill identity: principals and setAuth, on a Deno KV file (Deno; a KV stand-in on Bun)", () =>
  withKv((kv, kind) => isolation(kind, denoKvStore(kv))));

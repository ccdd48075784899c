// The TokenStore contract, run against the memory store and the Kv store (over an
// in-memory KvLike that behaves like Deno.Kv: structured clones, expireIn).

import { assert, assertEquals, assertThrows, test } from "../_harness.ts";
import { type KvKeyPart, type KvLike, kvTokenStore } from "../../oauth/kv_store.ts";
import { memoryTokenStore, type PendingAuthorization, type TokenStore } from "../../oauth/store.ts";

function fakeKv(now: () => number): KvLike & { keys(): string[] } {
  const map = new Map<string, { value: unknown; expires?: number }>();
  const id = (key: KvKeyPart[]) => JSON.stringify(key.map(String));
  return {
    get(key) {
      const entry = map.get(id(key));
      if (entry === undefined || (entry.expires !== undefined && entry.expires <= now())) {
        return Promise.resolve({ value: null });
      }
      return Promise.resolve({ value: structuredClone(entry.value) });
    },
    set(key, value, options) {
      map.set(id(key), {
        value: structuredClone(value),
        expires: options?.expireIn === undefined ? undefined : now() + options.expireIn,
      });
      return Promise.resolve({ ok: true });
    },
    delete(key) {
      map.delete(id(key));
      return Promise.resolve();
    },
    keys: () => [...map.keys()],
  };
}

const KEY = { principal: "alice", issuer: "https://as.ex.com", resource: "https://mcp.ex.com/mcp" };
const TOKENS = {
  accessToken: "at",
  tokenType: "Bearer" as const,
  refreshToken: "rt",
  issuer: KEY.issuer,
  resource: KEY.resource,
};
const PENDING: PendingAuthorization = {
  state: "s1",
  codeVerifier: "v",
  issuer: KEY.issuer,
  metadata: { issuer: KEY.issuer },
  redirectUri: "http://127.0.0.1:1/cb",
  resource: KEY.resource,
  clientId: "c",
  tokenEndpointAuthMethod: "none",
  principal: "alice",
  createdAt: 0,
};

const STORES: [string, (now: () => number) => TokenStore][] = [
  ["memory", (now) => memoryTokenStore({ now })],
  ["kv", (now) => kvTokenStore(fakeKv(now), { now })],
];

for (const [name, make] of STORES) {
  test(`store (${name}): tokens per principal, issuer and resource`, async () => {
    const store = make(Date.now);
    await store.setTokens(KEY, TOKENS);
    assertEquals(await store.getTokens(KEY), TOKENS);
    for (
      const other of [{ principal: "bob" }, { issuer: "https://as2.ex.com" }, {
        resource: "https://other.ex.com/mcp",
      }]
    ) {
      assertEquals(await store.getTokens({ ...KEY, ...other }), undefined, JSON.stringify(other));
    }
    const got = (await store.getTokens(KEY))!;
    got.accessToken = "changed";
    assertEquals((await store.getTokens(KEY))!.accessToken, "at", "values are copies");
    await store.deleteTokens(KEY);
    assertEquals(await store.getTokens(KEY), undefined);
  });

  test(`store (${name}): tokens per profile; the default profile keeps its old key`, async () => {
    const store = make(Date.now);
    await store.setTokens(KEY, TOKENS);
    await store.setTokens({ ...KEY, profile: "work" }, { ...TOKENS, accessToken: "at-work" });
    await store.setTokens({ ...KEY, profile: "personal" }, { ...TOKENS, accessToken: "at-home" });
    assertEquals((await store.getTokens(KEY))?.accessToken, "at");
    assertEquals((await store.getTokens({ ...KEY, profile: "work" }))?.accessToken, "at-work");
    assertEquals((await store.getTokens({ ...KEY, profile: "personal" }))?.accessToken, "at-home");
    await store.deleteTokens({ ...KEY, profile: "work" });
    assertEquals(await store.getTokens({ ...KEY, profile: "work" }), undefined);
    assertEquals((await store.getTokens(KEY))?.accessToken, "at", "other profiles stay");
    assertEquals((await store.getTokens({ ...KEY, profile: "personal" }))?.accessToken, "at-home");
  });

  test(`store (${name}): clients per issuer`, async () => {
    const store = make(Date.now);
    const client = {
      issuer: KEY.issuer,
      clientId: "c1",
      clientSecret: "s",
      redirectUris: ["http://127.0.0.1:1/cb"],
    };
    await store.setClient(KEY.issuer, client);
    assertEquals(await store.getClient(KEY.issuer), client);
    assertEquals(await store.getClient("https://as2.ex.com"), undefined);
    await store.deleteClient(KEY.issuer);
    assertEquals(await store.getClient(KEY.issuer), undefined);
  });

  test(`store (${name}): pending authorizations expire`, async () => {
    let now = 1_000;
    const store = make(() => now);
    await store.setPending("s1", PENDING, 500);
    assertEquals(await store.getPending("s1"), PENDING);
    now += 499;
    assert(await store.getPending("s1") !== undefined);
    now += 1;
    assertEquals(await store.getPending("s1"), undefined);
    await store.setPending("s2", { ...PENDING, state: "s2" }, 500);
    await store.deletePending("s2");
    assertEquals(await store.getPending("s2"), undefined);
  });
}

test("store (kv): key layout and prefix, survives a new store over the same kv", async () => {
  const kv = fakeKv(Date.now);
  await kvTokenStore(kv, { prefix: ["app"] }).setTokens(KEY, TOKENS);
  assertEquals(kv.keys(), [JSON.stringify(["app", "tokens", "alice", KEY.issuer, KEY.resource])]);
  assertEquals(await kvTokenStore(kv, { prefix: ["app"] }).getTokens(KEY), TOKENS);
  assertEquals(await kvTokenStore(kv).getTokens(KEY), undefined, "another prefix sees nothing");
});

test("store (kv): rejects something that is not a Kv", () => {
  assertThrows(() => kvTokenStore({} as KvLike), TypeError);
});

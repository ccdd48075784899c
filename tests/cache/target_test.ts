// What names a server and an identity in the cache's keys: digests of the URL or command
// line and of the credentials, never the credentials themselves.
import { stdio } from "../../transports/stdio.ts";
import { streamableHttp } from "../../transports/streamable_http.ts";
import { assert, assertEquals, assertNotEquals, test } from "../_harness.ts";
import { startHttpFixture } from "../fixtures/http_server.ts";
import { FAST } from "../client/_helpers.ts";
import { connectClient } from "../../client/client.ts";
import { memoryStore } from "../../cache/memory.ts";
import { canonicalJson, digest, digestHalves } from "../../cache/digest.ts";

const URL_A = "https://mcp.example.com/mcp";

test("cache target: a fixed bearer token is its own identity, keyed by its digest", async () => {
  const one = await streamableHttp(URL_A, { auth: { bearer: "token-one" } }).cacheTarget!();
  const same = await streamableHttp(URL_A, { auth: { bearer: "token-one" } }).cacheTarget!();
  const two = await streamableHttp(URL_A, { auth: { bearer: "token-two" } }).cacheTarget!();
  assertEquals(one, same);
  assertNotEquals(one.identity, two.identity);
  assertEquals(one.server, two.server);
  assert(!JSON.stringify(one).includes("token-one"), "the token is never part of the key");
  const other = await streamableHttp("https://other.example.com/mcp").cacheTarget!();
  assertNotEquals(other.server, one.server, "the server is part of the key");
});

test("cache target: an auth function has an identity only with a credentialId", async () => {
  const unknown = await streamableHttp(URL_A, { auth: () => "t" }).cacheTarget!();
  assertEquals(unknown.identity, undefined);
  const alice = await streamableHttp(URL_A, { auth: () => "t", credentialId: "alice" })
    .cacheTarget!();
  const bob = await streamableHttp(URL_A, { auth: () => "t", credentialId: "bob" }).cacheTarget!();
  assert(alice.identity !== undefined && alice.identity !== bob.identity);
  const keyed = await streamableHttp(URL_A, { headers: { "x-api-key": "k1" } }).cacheTarget!();
  const other = await streamableHttp(URL_A, { headers: { "x-api-key": "k2" } }).cacheTarget!();
  assertNotEquals(keyed.identity, other.identity, "static headers are part of the identity");
});

test("cache target: stdio keys by the command line and the env given, which is also the identity", async () => {
  const a = await stdio({ command: "srv", args: ["--x"], env: { TOKEN: "1" } }).cacheTarget!();
  const b = await stdio({ command: "srv", args: ["--x"], env: { TOKEN: "2" } }).cacheTarget!();
  const c = await stdio({ command: "srv", args: ["--y"], env: { TOKEN: "1" } }).cacheTarget!();
  const same = await stdio({ command: "srv", args: ["--x"], env: { TOKEN: "1" } }).cacheTarget!();
  assertEquals(a, same);
  assertNotEquals(a.server, b.server);
  assertNotEquals(a.identity, b.identity);
  assertNotEquals(a.server, c.server);
});

test("cache target: asked without the endpoint, the same server and identity and no endpoint digest", async () => {
  const transports = [
    stdio({ command: "srv", args: ["--x"], env: { TOKEN: "1" } }),
    stdio({ command: "srv", args: ["--x"], inheritEnv: "all" }),
    streamableHttp(URL_A, { auth: { bearer: "token-one" } }),
    streamableHttp(URL_A, { auth: () => "t" }),
    streamableHttp(URL_A, { auth: () => "t", credentialId: "alice" }),
  ];
  for (const transport of transports) {
    const whole = await transport.cacheTarget!();
    const lean = await transport.cacheTarget!({ endpoint: false });
    assert(typeof whole.endpoint === "string" && whole.endpoint !== whole.server);
    assertEquals(lean, { server: whole.server, identity: whole.identity });
    assertEquals(await transport.cacheTarget!({ endpoint: true }), whole);
  }
  // A stdio server and its identity are the halves of one digest of the command line, the
  // env given and the inheritance; the endpoint (what pins and grants are keyed by) is the
  // digest stores already hold them by.
  const given = { TOKEN: "1" };
  const named = await transports[0].cacheTarget!();
  const [server, identity] = await digestHalves(
    canonicalJson(["stdio", "srv", ["--x"], null, given, "safe"]),
  );
  assertEquals(named, {
    server,
    endpoint: await digest(canonicalJson(["stdio", "srv", ["--x"], null])),
    identity,
  });
  assert(server !== identity);
  // Another inheritance choice, another server and identity; the same endpoint.
  const other = await stdio({ command: "srv", args: ["--x"], env: given, inheritEnv: ["HOME"] })
    .cacheTarget!();
  assert(other.server !== server && other.identity !== identity);
  assertEquals(other.endpoint, named.endpoint);
  assertEquals(
    (await transports[2].cacheTarget!()).identity,
    await digest(canonicalJson(["bearer", "token-one", canonicalJson({})])),
  );
});

test("setAuth with a new credentialId deletes the old identity's private results first", async () => {
  await using fixture = await startHttpFixture({ core: { cacheScope: "private" } });
  const store = memoryStore();
  const listed = () => fixture.core.methods().filter((m) => m === "tools/list").length;
  const options = (credentialId: string) => ({
    transport: streamableHttp(fixture.url, { auth: () => "t", credentialId }),
    reconnect: FAST,
    cache: store,
  });
  await using client = await connectClient(options("alice"));
  await client.listAllTools();
  await client.listAllTools();
  assertEquals(listed(), 1);
  await client.setAuth(() => "t2", { credentialId: "bob" });
  await client.listAllTools();
  assertEquals(listed(), 2, "bob does not see alice's private listing");
  await using again = await connectClient(options("alice"));
  await again.listAllTools();
  assertEquals(listed(), 3, "alice's private listing was deleted by setAuth");
  await again.listAllTools();
  assertEquals(listed(), 3);
});

// The loopback redirect receiver: real HTTP on 127.0.0.1.

import { assert, assertEquals, assertRejects, assertThrows, test } from "../_harness.ts";
import { loopbackCallback } from "../../oauth/callback.ts";

async function get(url: string): Promise<{ status: number; text: string }> {
  const response = await fetch(url);
  return { status: response.status, text: await response.text() };
}

test("callback: resolves once with the redirect that carries the awaited state", async () => {
  await using listener = await loopbackCallback().listen();
  assert(/^http:\/\/127\.0\.0\.1:\d+\/callback$/.test(listener.redirectUri), listener.redirectUri);
  const waited = listener.wait("s1");
  assertEquals((await get(`${listener.redirectUri}?code=x&state=other`)).status, 400);
  assertEquals((await get(`${listener.redirectUri}?code=x`)).status, 400);
  const ok = await get(`${listener.redirectUri}?code=abc&state=s1&iss=https%3A%2F%2Fas`);
  assertEquals(ok.status, 200);
  assert(ok.text.includes("close this window"));
  const url = await waited;
  assertEquals([url.searchParams.get("code"), url.searchParams.get("iss")], ["abc", "https://as"]);
  assertEquals((await get(`${listener.redirectUri}?code=abc&state=s1`)).status, 400, "only once");
  assertEquals((await get(listener.redirectUri.replace("/callback", "/other"))).status, 404);
});

test("callback: fixed port and path, custom page; the port is free again after close", async () => {
  const probe = await loopbackCallback().listen();
  const port = probe.port;
  await probe.close();
  const receiver = loopbackCallback({ port, path: "/oauth/done", successHtml: "<p>done</p>" });
  for (let round = 0; round < 2; round++) {
    const listener = await receiver.listen();
    assertEquals(listener.redirectUri, `http://127.0.0.1:${port}/oauth/done`);
    const waited = listener.wait(`s${round}`);
    assertEquals((await get(`${listener.redirectUri}?code=c&state=s${round}`)).text, "<p>done</p>");
    await waited;
    await listener.close();
  }
});

test("callback: waiting can be aborted; a bad port is refused", async () => {
  await using listener = await loopbackCallback().listen();
  const controller = new AbortController();
  const waited = listener.wait("s1", controller.signal);
  controller.abort(new Error("stop"));
  await assertRejects(() => waited, Error, "stop");
  assertEquals(
    (await get(`${listener.redirectUri}?code=c&state=s1`)).status,
    400,
    "no longer awaited",
  );
  assertThrows(() => loopbackCallback({ port: 70000 }), RangeError);
  assertThrows(() => loopbackCallback({ path: "callback" }), TypeError);
});

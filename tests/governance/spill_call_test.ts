// callTool's spill option on a client: per call (true, false, a store) over the client's
// shape.spill, the tool's own budget from its _meta, the spill reported in _meta, and every
// misuse a TypeError before any request.
import { createClient } from "../../client/client.ts";
import { memoryStore } from "../../cache/memory.ts";
import { mockServer } from "../../testing/mod.ts";
import { isMcpError } from "../../protocol/errors.ts";
import { assert, assertEquals, assertRejects, assertThrows, test } from "../_harness.ts";

const TEXT = Array.from({ length: 500 }, (_, i) => `line ${i}`).join("\n");

function server() {
  return mockServer({
    tools: [
      { name: "log", handler: () => TEXT },
      { name: "roomy", _meta: { "anthropic/maxResultSizeChars": 1_500 }, handler: () => TEXT },
      { name: "odd", _meta: { "anthropic/maxResultSizeChars": "lots" }, handler: () => TEXT },
    ],
  });
}

test("spill per call: true, false or a store, over the client's default", async () => {
  const mock = server();
  await using plain = createClient({ transport: mock.transport(), shape: { maxChars: 300 } });
  const cut = await plain.callTool("log", {}, { shape: "llm" });
  assertEquals(cut.spilled, undefined, "no spill by default");
  assert(cut.cutChars > 0 && cut.text.length <= 300);
  const kept = await plain.callTool("log", {}, { shape: "llm", spill: true });
  assert(kept.spilled !== undefined && kept.text.length <= 300);
  assertEquals(kept._meta, { "conduit/spill": kept.spilled });
  assert((await plain.readResult(kept.spilled.handle, { length: 100_000 })).text === TEXT);
  const store = memoryStore();
  const own = await plain.callTool("log", {}, { shape: "llm", spill: store });
  assert(own.spilled !== undefined);
  assert((await plain.readResult(own.spilled.handle, { length: 100_000 })).text === TEXT);

  await using spilling = createClient({
    transport: mock.transport(),
    shape: { maxChars: 300, spill: true },
  });
  assert(spilling.spilling() && !plain.spilling());
  const off = await spilling.callTool("log", {}, { shape: "llm", spill: false });
  assertEquals(off.spilled, undefined);
  const on = await spilling.callTool("log", {}, { shape: "llm" });
  assert(on.spilled !== undefined);
  // The other client's handle is not this one's (another client of the same server and
  // identity shares only a shared store; these are two memory stores of their own).
  const error = await spilling.readResult(kept.spilled.handle).catch((e) => e);
  assert(isMcpError(error) && error.reason === "unknown_result");
});

test("spill budget: the tool's maxResultSizeChars, unless the call gives maxChars", async () => {
  await using client = createClient({
    transport: server().transport(),
    shape: { maxChars: 300, spill: true },
  });
  await client.listAllTools();
  const roomy = await client.callTool("roomy", {}, { shape: "llm" });
  assert(roomy.text.length <= 1_500 && roomy.text.length > 1_000, `${roomy.text.length}`);
  const asked = await client.callTool("roomy", {}, { shape: "llm", maxChars: 400 });
  assert(asked.text.length <= 400);
  const odd = await client.callTool("odd", {}, { shape: "llm" });
  assert(odd.text.length <= 300, "a budget that is not a number is ignored");
});

test("spill misuse: TypeErrors before any request", async () => {
  const mock = server();
  assertThrows(
    () => createClient({ transport: mock.transport(), shape: { spill: "yes" as never } }),
    TypeError,
    "spill",
  );
  assertThrows(
    () => createClient({ transport: mock.transport(), shape: { spill: { ttlMs: -1 } } }),
    TypeError,
    "ttlMs",
  );
  await using client = createClient({ transport: mock.transport() });
  await assertRejects(
    () => client.callTool("log", {}, { spill: true } as never),
    TypeError,
    "shape",
  );
  await assertRejects(
    () => client.callTool("log", {}, { shape: "llm", spill: "x" as never }),
    TypeError,
    "spill",
  );
  await assertRejects(() => client.readResult("rs_x", { offset: -1 }), TypeError, "offset");
  await assertRejects(() => client.readResult("rs_x", { color: 1 } as never), TypeError, "color");
  const none = await client.readResult("rs_AAAAAAAAAAAAAAAAAAAAAA").catch((e) => e);
  assert(isMcpError(none) && none.kind === "not_found", "no spill: nothing under any handle");
});

test("spill media: an image is kept even within budget, its line names how to read its base64", async () => {
  const data = btoa("\x89PNG".repeat(3_000));
  const mock = mockServer({
    tools: [{
      name: "picture",
      handler: () => ({
        content: [{ type: "text", text: "here it is" }, {
          type: "image",
          mimeType: "image/png",
          data,
        }],
        isError: false,
      }),
    }],
  });
  await using client = createClient({ transport: mock.transport(), shape: { spill: true } });
  const shaped = await client.callTool("picture", {}, { shape: "llm" });
  const handle = shaped.spilled?.handle;
  assert(handle !== undefined, "kept, though its text fits");
  assertEquals([shaped.spilled!.media, shaped.spilled!.restChars, shaped.cutChars], [1, 0, 0]);
  assertEquals(
    shaped.text,
    `here it is\n[image: image/png, 11.7 KiB; its base64: read_result {"handle":"${handle}","media":0}]`,
  );
  assert(!shaped.text.includes(data.slice(0, 20)), "never the data itself");
  let back = "";
  for (let offset: number | null = 0; offset !== null;) {
    const page = await client.readResult(handle, { media: 0, offset, length: 5_000 });
    assertEquals(page.total, data.length);
    back += page.text;
    offset = page.nextOffset;
  }
  assert(back === data, "the base64 paged back whole");
  const none = await client.readResult(handle, { media: 1 }).catch((e) => e);
  assert(isMcpError(none) && none.kind === "not_found", "no second media block");
  await assertRejects(() => client.readResult(handle, { media: 0, grep: "x" }), TypeError);
  // Spilling off: the same line without a handle, and nothing kept.
  await using plain = createClient({ transport: mock.transport() });
  const line = await plain.callTool("picture", {}, { shape: "llm" });
  assertEquals([line.text, line.spilled], ["here it is\n[image: image/png, 11.7 KiB]", undefined]);
});

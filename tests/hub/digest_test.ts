// The names of a hub's stored snapshot and search index (hub/_digest.ts) are the cache's
// digest() of the same text whichever way they are made (Bun's synchronous SHA-256 from
// runtime/sha256.ts, or Web Crypto elsewhere): a snapshot or index one runtime stored is
// found by the other.
import { digest } from "../../cache/digest.ts";
import { nameDigest } from "../../hub/_digest.ts";
import { snapshotName } from "../../hub/_snapshot.ts";
import { sha256HexSync } from "../../runtime/sha256.ts";
import { assert, assertEquals, test } from "../_harness.ts";

const TEXTS = [
  "",
  "abc",
  "héllo ☃ 😀 日本語",
  "a lone surrogate \ud800 and \udc00",
  "x".repeat(70_000),
  JSON.stringify([1, [["weather", { command: "deno", args: ["run", "w.ts"], env: { K: "v" } }]]]),
];

async function webSha256(text: string): Promise<string> {
  const bytes = new Uint8Array(
    await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text)),
  );
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join("");
}

test("sha256HexSync: Web Crypto's SHA-256 under Bun, none elsewhere", async () => {
  const isBun = typeof (globalThis as { Bun?: unknown }).Bun === "object";
  for (const text of TEXTS) {
    const hex = sha256HexSync(text);
    if (isBun) {
      assertEquals(hex, await webSha256(text), `the text ${JSON.stringify(text.slice(0, 20))}`);
    } else assertEquals(hex, undefined);
  }
  // The published test vector, so both sides are not wrong alike.
  assertEquals(
    await webSha256("abc"),
    "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
  );
});

test("nameDigest is the cache's digest() of the same text", async () => {
  const seen = new Set<string>();
  for (const text of TEXTS) {
    const name = await nameDigest(text);
    assertEquals(name, await digest(text));
    assert(/^[0-9a-f]{32}$/.test(name), name);
    seen.add(name);
  }
  assertEquals(seen.size, TEXTS.length);
});

test("a snapshot's name is digest() of its entries, as both runtimes make it", async () => {
  const entries = [
    ["weather", { command: "deno", args: ["run", "weather.ts"], env: { TOKEN: "t" } }],
    ["notes", { command: "bun", args: ["notes.ts"] }],
  ] as const;
  assertEquals(await snapshotName(entries), await digest(JSON.stringify([1, entries])));
  assert(
    await snapshotName(entries) !== await snapshotName([entries[1], entries[0]]),
    "another order names another snapshot",
  );
});

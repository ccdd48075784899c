// The safe tool names of the dialect compiler, table first: names that fit are kept, others
// sanitised, and long ones cut with a hash so two names sharing their first 64 characters
// still differ; every safe name maps back.
import { MAX_NAME, safeNames, shortHash } from "../../adapters/_names.ts";
import { assert, assertEquals, assertMatch, test } from "../_harness.ts";

const SAFE = /^[a-zA-Z0-9_-]{1,64}$/;
const LONG = "a".repeat(70);

const CASES: { what: string; names: string[]; expected: Record<string, string | RegExp> }[] = [
  {
    what: "names that fit are kept",
    names: ["echo", "get-sum", "A_b-9"],
    expected: { echo: "echo", "get-sum": "get-sum", "A_b-9": "A_b-9" },
  },
  {
    what: "other characters become _",
    names: ["weather.today", "a b/c"],
    expected: { "weather.today": "weather_today", "a b/c": "a_b_c" },
  },
  { what: "an empty name", names: [""], expected: { "": "tool" } },
  { what: "a non-ASCII letter", names: ["héllo"], expected: { "héllo": "h_llo" } },
  // A sanitised name that meets one that fits: the one that fits keeps it, whatever the order.
  {
    what: "a sanitised name meets one that fits (that one first)",
    names: ["a.b", "a_b"],
    expected: { "a_b": "a_b", "a.b": /^a_b_[0-9a-f]{8}$/ },
  },
  {
    what: "a sanitised name meets one that fits (that one last)",
    names: ["a_b", "a.b"],
    expected: { "a_b": "a_b", "a.b": /^a_b_[0-9a-f]{8}$/ },
  },
  // Exactly 64 fits; 65 is cut to 55 + "_" + 8 hex digits.
  {
    what: "64 characters fit",
    names: ["x".repeat(64)],
    expected: { ["x".repeat(64)]: "x".repeat(64) },
  },
  {
    what: "65 characters are cut and hashed",
    names: ["x".repeat(65)],
    expected: { ["x".repeat(65)]: new RegExp(`^x{55}_[0-9a-f]{8}$`) },
  },
  {
    what: "two long names sharing a prefix",
    names: [`${LONG}_one`, `${LONG}_two`],
    expected: { [`${LONG}_one`]: /^a{55}_[0-9a-f]{8}$/, [`${LONG}_two`]: /^a{55}_[0-9a-f]{8}$/ },
  },
];

for (const { what, names, expected } of CASES) {
  test(`names: ${what}`, () => {
    const map = safeNames(names);
    for (const [name, want] of Object.entries(expected)) {
      const got = map.safe.get(name);
      assert(got !== undefined, `a safe name for ${name}`);
      if (typeof want === "string") assertEquals(got, want);
      else assertMatch(got, want);
      assertMatch(got, SAFE);
      assertEquals(map.original.get(got), name);
    }
    assertEquals(new Set(map.safe.values()).size, new Set(names).size, "unique");
  });
}

test("names: many long names sharing a 64-character prefix are unique, ≤ 64, and map back", () => {
  const prefix = "server_with_a_rather_long_name__tool_with_an_even_longer_name_";
  const names = Array.from({ length: 500 }, (_, i) => `${prefix}${i}`);
  assert(prefix.length >= MAX_NAME - 2);
  const map = safeNames(names);
  const safe = names.map((n) => map.safe.get(n)!);
  assertEquals(new Set(safe).size, names.length);
  for (const [i, s] of safe.entries()) {
    assertMatch(s, SAFE);
    assertEquals(map.original.get(s), names[i]);
  }
  // Deterministic: the same names in another order map the same way.
  const again = safeNames([...names].reverse());
  assertEquals(names.map((n) => again.safe.get(n)), safe);
});

test("names: a clash of hashes is resolved by hashing again", () => {
  const long = "b".repeat(80);
  // A name that fits, taking the cut form the long name would get.
  const taken = `${"b".repeat(55)}_${shortHash(long)}`;
  const map = safeNames([taken, long]);
  assertEquals(map.safe.get(taken), taken);
  const other = map.safe.get(long)!;
  assert(other !== taken);
  assertMatch(other, SAFE);
  assertEquals(map.original.get(other), long);
});

test("names: the hash is FNV-1a, 8 hex digits", () => {
  assertEquals(shortHash(""), "811c9dc5");
  assertEquals(shortHash("a"), "e40c292c");
});

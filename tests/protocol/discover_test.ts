import { assert, assertEquals, test } from "../_harness.ts";
import { isDiscoverShaped, parseDiscoverResult } from "../../protocol/discover.ts";

const VALID = { resultType: "complete", supportedVersions: ["2026-07-28"], capabilities: {} };

test("isDiscoverShaped() looks for resultType or supportedVersions only", () => {
  const table: [unknown, boolean][] = [
    [VALID, true],
    [{ resultType: "complete" }, true],
    [{ resultType: null }, true],
    [{ supportedVersions: 1 }, true],
    [{}, false],
    [{ capabilities: {}, serverInfo: {} }, false],
    [{ resultType: undefined }, false],
    [null, false],
    [[{ resultType: "complete" }], false],
    ["complete", false],
  ];
  for (const [value, expected] of table) {
    assertEquals(isDiscoverShaped(value), expected, JSON.stringify(value));
  }
});

test("parseDiscoverResult() accepts valid results and normalises the cache fields", () => {
  const table: [unknown, Record<string, unknown>][] = [
    [VALID, { ...VALID, ttlMs: 0, cacheScope: "private" }],
    [
      { supportedVersions: ["2026-07-28", "2025-11-25"], capabilities: { tools: {} } },
      {
        resultType: "complete",
        supportedVersions: ["2026-07-28", "2025-11-25"],
        capabilities: { tools: {} },
        ttlMs: 0,
        cacheScope: "private",
      },
    ],
    [
      { ...VALID, ttlMs: 3_600_000, cacheScope: "public", instructions: "Hi", _meta: { a: 1 } },
      { ...VALID, ttlMs: 3_600_000, cacheScope: "public", instructions: "Hi", _meta: { a: 1 } },
    ],
    [{ ...VALID, ttlMs: 0, cacheScope: "private" }, { ...VALID, ttlMs: 0, cacheScope: "private" }],
    [{ ...VALID, ttlMs: 1.5 }, { ...VALID, ttlMs: 1.5, cacheScope: "private" }],
    [{ ...VALID, extra: [1] }, { ...VALID, extra: [1], ttlMs: 0, cacheScope: "private" }],
  ];
  for (const [input, expected] of table) {
    const parsed = parseDiscoverResult(input);
    assert(parsed.ok, JSON.stringify(input));
    assertEquals(parsed.result as unknown, expected);
  }
});

test("parseDiscoverResult() copies supportedVersions", () => {
  const input = { ...VALID, supportedVersions: ["2026-07-28"] };
  const parsed = parseDiscoverResult(input);
  assert(parsed.ok);
  parsed.result.supportedVersions.push("x");
  assertEquals(input.supportedVersions, ["2026-07-28"]);
});

test("parseDiscoverResult() rejects invalid results with a reason", () => {
  const table: [string, unknown, string][] = [
    ["not an object", "x", "not an object"],
    ["an array", [], "not an object"],
    ["resultType task", { ...VALID, resultType: "task" }, "resultType"],
    ["resultType input_required", { ...VALID, resultType: "input_required" }, "resultType"],
    ["no supportedVersions", { capabilities: {} }, "supportedVersions"],
    ["empty supportedVersions", { ...VALID, supportedVersions: [] }, "supportedVersions"],
    ["non-string version", { ...VALID, supportedVersions: ["2026-07-28", 1] }, "supportedVersions"],
    ["no capabilities", { supportedVersions: ["2026-07-28"] }, "capabilities"],
    ["null capabilities", { ...VALID, capabilities: null }, "capabilities"],
    ["ttlMs negative", { ...VALID, ttlMs: -1 }, "ttlMs"],
    ["ttlMs NaN", { ...VALID, ttlMs: NaN }, "ttlMs"],
    ["ttlMs null", { ...VALID, ttlMs: null }, "ttlMs"],
    ["cacheScope other", { ...VALID, cacheScope: "PUBLIC" }, "cacheScope"],
    ["instructions object", { ...VALID, instructions: {} }, "instructions"],
    ["_meta array", { ...VALID, _meta: [] }, "_meta"],
  ];
  for (const [label, input, mentions] of table) {
    const parsed = parseDiscoverResult(input);
    assert(!parsed.ok, label);
    assert(parsed.reason.includes(mentions), `${label}: ${parsed.reason}`);
  }
});

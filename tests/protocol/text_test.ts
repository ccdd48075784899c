// The shared sanitiser (protocol/text.ts): what it removes, what it keeps, and its caps.
import { assertEquals, assertThrows, test } from "../_harness.ts";
import { capBytes, oneLine, sanitizeText } from "../../protocol/text.ts";

test("sanitizeText: invisible, bidi-control and escape characters go; visible text stays", () => {
  const table: [string, string, string][] = [
    ["zero-width space, joiner, non-joiner", "a\u200Bb\u200Cc\u200Dd", "abcd"],
    ["word joiner and invisible operators", "a\u2060b\u2062c\u2064d", "abcd"],
    ["BOM and soft hyphen", "\uFEFFin\u00ADvisible", "invisible"],
    ["bidi embeddings and overrides", "\u202Aa\u202Bb\u202Cc\u202Dd\u202Ee", "abcde"],
    ["bidi isolates", "\u2066a\u2067b\u2068c\u2069", "abc"],
    ["bidi marks (LRM, RLM, ALM)", "a\u200Eb\u200Fc\u061Cd", "abcd"],
    ["tag characters, the whole block", "ok\u{E0000}\u{E0001}\u{E0041}\u{E007E}\u{E007F}", "ok"],
    ["variation selectors", "x\uFE0Fy\uFE00z\u{E0100}\u{E01EF}", "xyz"],
    ["combining grapheme joiner and fillers", "a\u034Fb\u115Fc\u3164d\u17B4e", "abcde"],
    ["C0 and C1 controls but tab and newline", "a\u0000b\u0007c\u009Bd\te\nf", "abcd\te\nf"],
    [
      "terminal colours and hyperlinks",
      "\u001B[31mred\u001B[0m \u001B]8;;http://x\u0007link",
      "red link",
    ],
    ["line breaks unified", "a\r\nb\rc\u2028d\u2029e", "a\nb\nc\nd\ne"],
    ["lone surrogates", "a\uD800b\uDC00c", "a\uFFFDb\uFFFDc"],
    ["NFC (decomposed é composes)", "e\u0301t\u00E9", "\u00E9t\u00E9"],
    ["not NFKC: ligatures and superscripts stay", "\uFB01 x\u00B2", "\uFB01 x\u00B2"],
    ["emoji, CJK, RTL letters stay", "😀 日本 שלום مرحبا", "😀 日本 שלום مرحبا"],
    ["a joiner between combining marks no longer blocks NFC", "e\u200B\u0301", "\u00E9"],
  ];
  for (const [what, input, expected] of table) assertEquals(sanitizeText(input), expected, what);
});

test("sanitizeText: maxBytes keeps the longest prefix that fits, never half a character", () => {
  assertEquals(sanitizeText("héllo", { maxBytes: 2 }), "h");
  assertEquals(sanitizeText("héllo", { maxBytes: 3 }), "hé");
  assertEquals(sanitizeText("a\u200B😀", { maxBytes: 4 }), "a", "counted after stripping");
  assertEquals(sanitizeText("a\u200B😀", { maxBytes: 5 }), "a😀");
  assertEquals(sanitizeText("abc", { maxBytes: 0 }), "");
  assertEquals(capBytes("abc", 3), "abc");
  for (const bad of [-1, 1.5, "3", NaN]) {
    assertThrows(
      () => sanitizeText("x", { maxBytes: bad as number }),
      TypeError,
      '"maxBytes"',
    );
  }
  assertThrows(() => sanitizeText(42 as unknown as string), TypeError, "text must be a string");
});

test("oneLine: one sanitised line, cut with an ellipsis, never half a pair", () => {
  assertEquals(oneLine("evil\n\nname\u202E  x", 64), "evil name x");
  assertEquals(oneLine("abcdef", 4), "abc…");
  assertEquals(oneLine("ab😀cd", 4), "ab…");
  assertEquals(oneLine("  \u200B ", 10), "");
});

// Results as text for a model, table first: a shaped answer (`shape: "llm"`) used as it is,
// a plain ToolResult's content joined.
import { modelText } from "../../adapters/_result.ts";
import { assertEquals, test } from "../_harness.ts";

const CASES: { what: string; value: unknown; text: string; isError?: boolean }[] = [
  {
    what: "a shaped answer's text, and its isError",
    value: { text: "short", isError: true, approxTokens: 2, cutChars: 0 },
    text: "short",
    isError: true,
  },
  {
    what: "text blocks joined by lines",
    value: { content: [{ type: "text", text: "a" }, { type: "text", text: "b" }], isError: false },
    text: "a\nb",
  },
  {
    what: "an embedded text resource by its text, other blocks by a mention",
    value: {
      content: [
        { type: "resource", resource: { uri: "file:///a", text: "inside" } },
        { type: "resource", resource: { uri: "file:///b", blob: "AAAA" } },
        { type: "resource_link", uri: "demo://x", name: "X" },
        { type: "image", data: "AAAA", mimeType: "image/png" },
        { type: "audio", data: "AAAA" },
        { type: "widget" },
      ],
      isError: false,
    },
    text:
      "inside\n[resource file:///b]\n[resource demo://x (X)]\n[image image/png]\n[audio]\n[widget]",
  },
  {
    what: "structured content as JSON when there is no text block",
    value: { content: [], structuredContent: { sum: 42 }, isError: false },
    text: '{"sum":42}',
  },
  {
    what: "structured content left out when a text block says it",
    value: {
      content: [{ type: "text", text: "42" }],
      structuredContent: { sum: 42 },
      isError: false,
    },
    text: "42",
  },
  {
    what: "a tool failure",
    value: { content: [{ type: "text", text: "no" }], isError: true },
    text: "no",
    isError: true,
  },
  { what: "something that is not an object, as JSON", value: 7, text: "7" },
  { what: "nothing", value: undefined, text: "" },
];

for (const { what, value, text, isError = false } of CASES) {
  test(`result: ${what}`, () => {
    assertEquals(modelText(value), { text, isError });
  });
}

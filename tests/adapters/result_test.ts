// Results as text for a model, table first: a shaped answer (`shape: "llm"`) used as it is,
// a plain ToolResult shaped by the same projection as the client's.
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
    what: "embedded resources, links and media as short references",
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
    text: "[resource: file:///a, 6 bytes text]\n[resource: file:///b, 3 bytes blob]\n" +
      '[resource link: "X" demo://x]\n[image: image/png, 3 bytes]\n[audio: 3 bytes]\n[widget content]',
  },
  {
    what: "structured content as JSON when there is no text block",
    value: { content: [], structuredContent: { sum: 42 }, isError: false },
    text: '{"sum":42}',
  },
  {
    what: "structured content kept beside a text block that says something else",
    value: {
      content: [{ type: "text", text: "42" }],
      structuredContent: { sum: 42 },
      isError: false,
    },
    text: '42\n{"sum":42}',
  },
  {
    what: "structured content once, instead of a text block that repeats it",
    value: {
      content: [{ type: "text", text: '{ "sum": 42 }' }],
      structuredContent: { sum: 42 },
      isError: false,
    },
    text: '{"sum":42}',
  },
  {
    what: "a tool failure",
    value: { content: [{ type: "text", text: "no" }], isError: true },
    text: "The tool reported an error.\nno",
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

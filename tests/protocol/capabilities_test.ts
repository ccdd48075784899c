import { assertEquals, test } from "../_harness.ts";
import {
  clientCapabilities,
  type ClientCapabilitiesOptions,
  type ClientHandler,
} from "../../protocol/capabilities.ts";

const sampling: ClientHandler["sampling"] = () => Promise.resolve({});
const elicitation: ClientHandler["elicitation"] = () => Promise.resolve({ action: "cancel" });
const listRoots: ClientHandler["listRoots"] = () => Promise.resolve([]);
const ALL: ClientHandler = { sampling, elicitation, listRoots };

test("clientCapabilities() advertises only implemented callbacks", () => {
  const table: [string, ClientHandler | undefined, ClientCapabilitiesOptions, unknown][] = [
    ["no handler", undefined, {}, {}],
    ["empty handler", {}, {}, {}],
    ["null handler", null as unknown as ClientHandler, {}, {}],
    [
      "callbacks that are not functions",
      { sampling: 1, listRoots: "x" } as unknown as ClientHandler,
      {},
      {},
    ],
    ["sampling", { sampling }, {}, { sampling: {} }],
    ["sampling with tools", { sampling }, { samplingTools: true }, { sampling: { tools: {} } }],
    ["sampling with context", { sampling }, { samplingContext: true }, {
      sampling: { context: {} },
    }],
    [
      "sampling with both",
      { sampling },
      { samplingTools: true, samplingContext: true },
      { sampling: { tools: {}, context: {} } },
    ],
    ["sampling options without sampling", { listRoots }, { samplingTools: true }, { roots: {} }],
    ["elicitation, modern", { elicitation }, {}, { elicitation: { form: {}, url: {} } }],
    [
      "elicitation, 2025-11-25",
      { elicitation },
      { era: "legacy", version: "2025-11-25" },
      { elicitation: { form: {}, url: {} } },
    ],
    ["elicitation, 2025-06-18", { elicitation }, { version: "2025-06-18" }, { elicitation: {} }],
    ["roots, modern", { listRoots }, {}, { roots: {} }],
    ["roots, modern ignores listChanged", { listRoots }, { rootsListChanged: true }, { roots: {} }],
    ["roots, legacy", { listRoots }, { era: "legacy" }, { roots: {} }],
    [
      "roots, legacy with listChanged",
      { listRoots },
      { era: "legacy", rootsListChanged: true },
      { roots: { listChanged: true } },
    ],
    [
      "roots, era from the version",
      { listRoots },
      { version: "2025-11-25", rootsListChanged: true },
      { roots: { listChanged: true } },
    ],
    [
      "roots, explicit era wins over the version",
      { listRoots },
      { era: "modern", version: "2025-11-25", rootsListChanged: true },
      { roots: {} },
    ],
    [
      "everything, legacy 2025-06-18",
      ALL,
      { version: "2025-06-18", samplingTools: true, rootsListChanged: true },
      { sampling: { tools: {} }, elicitation: {}, roots: { listChanged: true } },
    ],
    [
      "everything, modern",
      ALL,
      { samplingContext: true, rootsListChanged: true },
      { sampling: { context: {} }, elicitation: { form: {}, url: {} }, roots: {} },
    ],
  ];
  for (const [label, handler, opts, expected] of table) {
    assertEquals(clientCapabilities(handler, opts) as unknown, expected, label);
  }
});

test("clientCapabilities() returns a fresh object each time", () => {
  const first = clientCapabilities(ALL);
  (first.sampling as Record<string, unknown>).tools = {};
  assertEquals(clientCapabilities(ALL).sampling, {});
  assertEquals(clientCapabilities(undefined), {});
});

import { assert, assertEquals, test } from "../_harness.ts";
import { allowsInputRequired } from "../../protocol/mrtr.ts";
import {
  INPUT_REQUEST_METHODS,
  parseInputRequired,
  retryParams,
} from "../../protocol/mrtr_rounds.ts";

test("allowsInputRequired: only tools/call, prompts/get and resources/read", () => {
  const table: [string, boolean][] = [
    ["tools/call", true],
    ["prompts/get", true],
    ["resources/read", true],
    ["tools/list", false],
    ["server/discover", false],
    ["completion/complete", false],
    ["subscriptions/listen", false],
    ["", false],
  ];
  for (const [method, expected] of table) {
    assertEquals(allowsInputRequired(method), expected, method);
  }
  assertEquals([...INPUT_REQUEST_METHODS].sort(), [
    "elicitation/create",
    "roots/list",
    "sampling/createMessage",
  ]);
});

test("parseInputRequired: valid shapes, and what is wrong with the others", () => {
  const base = { resultType: "input_required" };
  const ok: [string, Record<string, unknown>, unknown][] = [
    ["both", { ...base, inputRequests: { a: { method: "roots/list" } }, requestState: "s" }, {
      inputRequests: { a: { method: "roots/list", params: {} } },
      requestState: "s",
    }],
    ["state only", { ...base, requestState: "" }, { requestState: "" }],
    ["requests only", {
      ...base,
      inputRequests: { x: { method: "elicitation/create", params: { message: "m" } } },
    }, { inputRequests: { x: { method: "elicitation/create", params: { message: "m" } } } }],
    ["empty requests", { ...base, inputRequests: {} }, { inputRequests: {} }],
  ];
  for (const [name, result, expected] of ok) {
    assertEquals(parseInputRequired(result), expected, name);
  }
  const bad: [string, Record<string, unknown>, string][] = [
    ["neither", base, "neither"],
    ["state not a string", { ...base, requestState: 5 }, "requestState"],
    ["requests an array", { ...base, inputRequests: [] }, "inputRequests"],
    ["entry without method", { ...base, inputRequests: { a: { params: {} } } }, '"a"'],
    ["entry not an object", { ...base, inputRequests: { a: "roots/list" } }, '"a"'],
    [
      "params not an object",
      { ...base, inputRequests: { a: { method: "m", params: [] } } },
      "params",
    ],
  ];
  for (const [name, result, mention] of bad) {
    const parsed = parseInputRequired(result);
    assert(typeof parsed === "string" && parsed.includes(mention), `${name}: ${parsed}`);
  }
});

test("retryParams: original params, fresh answers, state echoed or left out", () => {
  const original = {
    name: "deploy",
    arguments: { env: "prod" },
    _meta: { progressToken: 1 },
    inputResponses: { stale: {} },
    requestState: "stale",
  };
  const frozen = structuredClone(original);
  const state = "v1.é/+= exact";
  assertEquals(retryParams(original, { ok: { action: "accept" } }, state), {
    name: "deploy",
    arguments: { env: "prod" },
    inputResponses: { ok: { action: "accept" } },
    requestState: state,
  });
  const noState = retryParams(original, { ok: {} }, undefined);
  assert(!("requestState" in noState), "no state sent, none echoed");
  assert(!("_meta" in noState), "each retry gets its own _meta");
  const stateOnly = retryParams(original, undefined, "s");
  assert(!("inputResponses" in stateOnly), "nothing asked, nothing answered");
  assertEquals(original, frozen, "the original params are not changed");
});

test("parseInputRequired: an input request keyed __proto__ is kept", () => {
  const result = JSON.parse(
    '{"resultType":"input_required","inputRequests":{"__proto__":{"method":"roots/list"}}}',
  );
  const parsed = parseInputRequired(result);
  assert(typeof parsed === "object");
  assertEquals(Object.keys(parsed.inputRequests ?? {}), ["__proto__"]);
  assertEquals(Object.getPrototypeOf(parsed.inputRequests), Object.prototype);
});

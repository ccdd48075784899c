// The `elicitation` answer rules and the form reading they share with the CLI: a schema read
// into fields (every kind the protocol defines; hostile schemas refused or capped), typed
// text read by a field's type, answers checked against the schema; rules matched by message
// (text or RegExp), fields and server, first match wins; a refused answer and no match both
// answer `cancel` with a sanitised warning; the option's checks; and the rules on a real
// client in both eras, in front of the handler's own elicitation.
import ruled, { answerByRules } from "../../client/handler/answer_rules.ts";
import type { ElicitationRule } from "../../client/types.ts";
import {
  checkAnswer,
  checkField,
  type FormField,
  formFields,
  readField,
} from "../../protocol/elicitation_form.ts";
import { readFileSync } from "node:fs";
import { hub } from "../../hub/hub.ts";
import { inProcess } from "../../transports/in_process.ts";
import { createFixtureServer } from "../fixtures/server.ts";
import { staticModules } from "../edge/_budget.ts";
import type { Round } from "../fixtures/_mrtr.ts";
import { assert, assertEquals, assertThrows, test } from "../_harness.ts";
import { fixtureClient, mcpError } from "./_helpers.ts";

const CTX = {
  signal: new AbortController().signal,
  era: "legacy" as const,
  protocolVersion: "2025-11-25",
};

const SCHEMA = {
  type: "object",
  properties: {
    name: { type: "string", title: "Name", minLength: 2, maxLength: 5 },
    email: { type: "string", format: "email" },
    site: { type: "string", format: "uri" },
    born: { type: "string", format: "date" },
    at: { type: "string", format: "date-time" },
    age: { type: "integer", minimum: 18, maximum: 99, default: 30 },
    ratio: { type: "number", minimum: 0, maximum: 1 },
    ok: { type: "boolean", default: "not a boolean" },
    size: { type: "string", enum: ["s", "m"], enumNames: ["Small", "Medium"] },
    hero: { type: "string", oneOf: [{ const: "h1", title: "Superman" }, { const: "h2" }] },
    tags: { type: "array", items: { enum: ["a", "b", "c"] }, minItems: 1, maxItems: 2 },
    fish: { type: "array", items: { anyOf: [{ const: "f1", title: "Tuna" }] } },
  },
  required: ["name", "age"],
};

function fields(): FormField[] {
  const read = formFields(SCHEMA);
  if (typeof read === "string") throw new Error(read);
  return read;
}
const field = (key: string) => fields().find((f) => f.key === key)!;

test("elicitation form: every kind of field, required, defaults (an invalid default dropped)", () => {
  const all = fields();
  assertEquals(all.map((f) => [f.key, f.kind, f.required]), [
    ["name", "string", true],
    ["email", "string", false],
    ["site", "string", false],
    ["born", "string", false],
    ["at", "string", false],
    ["age", "integer", true],
    ["ratio", "number", false],
    ["ok", "boolean", false],
    ["size", "choice", false],
    ["hero", "choice", false],
    ["tags", "choices", false],
    ["fish", "choices", false],
  ]);
  assertEquals(field("age").default, 30);
  assertEquals(field("ok").default, undefined);
  assertEquals(field("size").options, [{ value: "s", label: "Small" }, {
    value: "m",
    label: "Medium",
  }]);
  assertEquals(field("hero").options, [{ value: "h1", label: "Superman" }, {
    value: "h2",
    label: "h2",
  }]);
  assertEquals(field("fish").options, [{ value: "f1", label: "Tuna" }]);
  assertEquals(field("email").title, "email");
});

test("elicitation form: hostile schemas are refused or capped", () => {
  assertEquals(formFields("nope"), "the requested schema is not an object");
  assertEquals(
    formFields({ type: "object", properties: { deep: { type: "object", properties: {} } } }),
    'field "deep" has type "object", which a form cannot ask for',
  );
  const many = Object.fromEntries(
    Array.from({ length: 101 }, (_, i) => [`f${i}`, { type: "string" }]),
  );
  assertEquals(
    formFields({ type: "object", properties: many }),
    "the form has 101 fields, more than 100",
  );
  const long = formFields({
    type: "object",
    properties: { x: { type: "string", title: "t".repeat(5000), description: "d".repeat(9000) } },
  }) as FormField[];
  assertEquals(long[0].title.length, 200);
  assertEquals(long[0].description!.length, 2000);
  assertEquals(
    formFields({ type: "object", properties: { e: { type: "string", enum: [] } } }),
    'field "e" is an enum without options',
  );
});

test("elicitation form: typed text read by the field's type, with the reason when refused", () => {
  const read = (key: string, text: string) => readField(field(key), text);
  assertEquals(read("name", "Ada"), { value: "Ada" });
  assertEquals(read("name", "A"), { reason: "must be at least 2 characters" });
  assertEquals(read("name", "Adaline"), { reason: "must be at most 5 characters" });
  assertEquals(read("email", "ada@example.com"), { value: "ada@example.com" });
  assertEquals(read("email", "ada"), { reason: "is not an email address" });
  assertEquals(read("site", "https://example.com"), { value: "https://example.com" });
  assert("reason" in read("site", "not a url"));
  assertEquals(read("born", "2024-02-29"), { value: "2024-02-29" });
  assertEquals(read("born", "2025-02-29"), { reason: "is not a date (YYYY-MM-DD)" });
  assertEquals(read("at", "2025-01-31T09:30:00Z"), { value: "2025-01-31T09:30:00Z" });
  assert("reason" in read("at", "yesterday"));
  assertEquals(read("age", "42"), { value: 42 });
  assertEquals(read("age", "4.5"), { reason: "must be a whole number" });
  assertEquals(read("age", "17"), { reason: "must be at least 18" });
  assertEquals(read("age", "0x20"), { reason: "must be a number" });
  assertEquals(read("ratio", ".5"), { value: 0.5 });
  assertEquals(read("ratio", "2"), { reason: "must be at most 1" });
  assertEquals(read("ok", "Yes"), { value: true });
  assertEquals(read("ok", "n"), { value: false });
  assertEquals(read("ok", "perhaps"), { reason: "must be yes or no" });
  assertEquals(read("size", "2"), { value: "m" });
  assertEquals(read("size", "medium"), { value: "m" });
  assertEquals(read("size", "s"), { value: "s" });
  assertEquals(read("size", "9"), { reason: "must be one of 1-2 (or an option's name)" });
  assertEquals(read("tags", "1, c"), { value: ["a", "c"] });
  assertEquals(read("tags", "a,b,c"), { reason: "takes at most 2 choices" });
  assertEquals(read("tags", "a,a"), { reason: "holds a choice twice" });
  assertEquals(read("tags", ","), { reason: "needs at least 1 choices" });
  assertEquals(checkField(field("tags"), "a"), "must be a list of choices");
});

test("elicitation form: a whole answer checked against the schema", () => {
  assertEquals(checkAnswer(fields(), { name: "Ada" }), undefined); // age has a default
  assertEquals(checkAnswer(fields(), { age: 40 }), 'required field "name" has no value');
  assertEquals(checkAnswer(fields(), { name: "Ada", extra: 1 }), 'the form has no field "extra"');
  assertEquals(checkAnswer(fields(), { name: 7 }), 'field "name" must be text');
});

const params = (message: string, extra: Record<string, unknown> = {}) => ({
  message,
  requestedSchema: SCHEMA,
  ...extra,
});

test("answer rules: first match by message (text or RegExp), fields and server", async () => {
  const warnings: string[] = [];
  const warn = (message: string) => void warnings.push(message);
  const rules: ElicitationRule[] = [
    { server: "other", answer: "cancel" },
    { match: "ship", fields: ["missing"], answer: "cancel" },
    { match: /SHIP/gi, fields: ["name"], answer: { name: "Ada", age: "41", tags: "a,b" } },
    { answer: "defaults" },
  ];
  const first = await answerByRules(rules, params("Ship it?"), {
    server: "deploy",
    warn,
  });
  assertEquals(first, { action: "accept", content: { name: "Ada", age: 41, tags: ["a", "b"] } });
  // The global RegExp's lastIndex does not make the second match fail.
  const again = await answerByRules(rules, params("ship again"), {
    server: "deploy",
    warn,
  });
  assertEquals(again.action, "accept");
  assertEquals(
    await answerByRules(rules, params("Ship it?"), { server: "other", warn }),
    { action: "cancel" },
  );
  // A rule naming a field the form lacks does not match: the next rule answers.
  const skip: ElicitationRule[] = [{ answer: { nickname: "x" } }, { answer: { name: "Bo" } }];
  assertEquals(await answerByRules(skip, params("?"), { warn }), {
    action: "accept",
    content: { name: "Bo" },
  });
  assertEquals(warnings, []);
});

test("answer rules: a refused answer and no match answer cancel, the warning sanitised", async () => {
  const warnings: string[] = [];
  const warn = (message: string) => void warnings.push(message);
  const hostile = "Pay\x1b[2J\x1b[1;1H now\u202e\u200b!\r\nreally";
  const bad = await answerByRules([{ answer: { name: "Ada", age: "12" } }], params(hostile), {
    server: "shop",
    warn,
  });
  assertEquals(bad, { action: "cancel" });
  const defaults = await answerByRules(
    [{ answer: "defaults" }],
    params("Fill"),
    { server: "shop", warn },
  );
  assertEquals(defaults, { action: "cancel" }); // name is required and has no default
  const none = await answerByRules([], params(hostile), {
    server: "shop\x1b]0;x\x07",
    warn,
  });
  assertEquals(none, { action: "cancel" });
  assertEquals(warnings, [
    `The elicitation rule for server shop's request "Pay now! really" cannot answer it ` +
    `(field "age" must be at least 18): answered cancel`,
    `The elicitation rule for server shop's request "Fill" cannot answer it ` +
    `(required field "name" has no value): answered cancel`,
    `No elicitation rule answers server shop's request "Pay now! really": answered cancel`,
  ]);
  for (const line of warnings) {
    assert(![...line].some((c) => c < " " || "\x7f\u202e\u200b".includes(c)), line);
  }
});

test("answer rules: URL requests take cancel rules only; a __proto__ key stays a key", async () => {
  const warn = () => {};
  const url = { mode: "url", message: "Log in", url: "https://example.com" };
  const rules: ElicitationRule[] = [{ answer: "defaults" }, { answer: { name: "x" } }];
  assertEquals(await answerByRules(rules, url, { warn }), { action: "cancel" });
  const proto = JSON.parse('{"__proto__": "polluted"}');
  const schema = { type: "object", properties: proto };
  schema.properties = JSON.parse('{"__proto__": {"type": "string"}}');
  const answer = await answerByRules([{ answer: JSON.parse('{"__proto__": "v"}') }], {
    message: "",
    requestedSchema: schema,
  }, { warn });
  assertEquals(answer.action, "accept");
  assert(Object.hasOwn(answer.content!, "__proto__"));
  assertEquals(Object.getPrototypeOf(answer.content), Object.prototype);
});

test("answer rules: the rules' checks (when the rules load, with the first elicitation)", () => {
  const use = (rule: unknown) => () =>
    ruled([rule as ElicitationRule], { message: "" }, CTX, { warn: () => {} });
  assertThrows(use(1), TypeError, 'option "elicitation" rule 0: must be an object');
  assertThrows(
    () => ruled({}, { message: "" }, CTX, { warn: () => {} }),
    TypeError,
    'option "elicitation" must be a list of answer rules',
  );
  assertThrows(use({ anser: "cancel" }), TypeError, 'has no key "anser"');
  assertThrows(use({ answer: "decline" }), TypeError, '"answer" must be "cancel", "defaults"');
  assertThrows(use({ match: 5, answer: "cancel" }), TypeError, '"match" must be text or a RegExp');
  assertThrows(use({ fields: "a", answer: "cancel" }), TypeError, '"fields" must be a list');
  assertThrows(use({ server: 1, answer: "cancel" }), TypeError, '"server" must be a name');
});

const ASK: Round = {
  deploy: {
    method: "elicitation/create",
    params: {
      message: "Deploy where?",
      requestedSchema: {
        type: "object",
        properties: { env: { type: "string", enum: ["stg", "prd"] }, n: { type: "integer" } },
        required: ["env"],
      },
    },
  },
  other: {
    method: "elicitation/create",
    params: { message: "Anything else?", requestedSchema: { type: "object", properties: {} } },
  },
};

for (const mode of ["legacy-only", "modern-only"] as const) {
  test(`answer rules on a client (${mode}): rules first, then the handler, else cancel`, async () => {
    const rules: ElicitationRule[] = [
      { server: "deployer", match: "Deploy", answer: { env: "prd", n: "2" } },
    ];
    const asked: string[] = [];
    {
      // Rules alone declare the elicitation capability (else the client could not answer).
      const { client, warnings } = fixtureClient({ mode }, {
        name: "deployer",
        elicitation: rules,
      });
      await using _ = client;
      const result = await client.callTool("mrtr", { plan: [ASK] });
      const answers = JSON.parse((result.content[0] as { text: string }).text).rounds[0];
      assertEquals(answers.deploy, { action: "accept", content: { env: "prd", n: 2 } });
      assertEquals(answers.other, { action: "cancel" });
      assertEquals(warnings, [
        'No elicitation rule answers server deployer\'s request "Anything else?": answered cancel',
      ]);
    }
    {
      const { client, warnings } = fixtureClient({ mode }, {
        name: "deployer",
        elicitation: rules,
        handler: {
          elicitation: (params) => {
            asked.push(String(params.message));
            return { action: "decline" };
          },
        },
      });
      await using _ = client;
      const result = await client.callTool("mrtr", { plan: [ASK] });
      const answers = JSON.parse((result.content[0] as { text: string }).text).rounds[0];
      assertEquals(answers.deploy.action, "accept");
      assertEquals(answers.other, { action: "decline" });
      assertEquals(asked, ["Anything else?"]);
      assertEquals(warnings, []);
    }
  });
}

test("answer rules: a bad rule fails the first elicitation loudly, in both eras", async () => {
  const bad = [{ anser: "cancel" }] as unknown as ElicitationRule[];
  {
    const { client, warnings } = fixtureClient({ mode: "legacy-only" }, { elicitation: bad });
    await using _ = client;
    const result = await client.callTool("mrtr", { plan: [{ deploy: ASK.deploy }] });
    const answer = JSON.parse((result.content[0] as { text: string }).text).rounds[0].deploy;
    assertEquals(answer.error.code, -32603);
    assert(warnings.some((w) => w.includes('rule 0: has no key "anser"')), warnings.join("\n"));
  }
  {
    const { client } = fixtureClient({ mode: "modern-only" }, { elicitation: bad });
    await using _ = client;
    const error = await mcpError(client.callTool("mrtr", { plan: [{ deploy: ASK.deploy }] }));
    assertEquals(error.reason, "handler_failed");
    assert(String((error as Error).cause).includes('has no key "anser"'), String(error.cause));
  }
});

/** The rules of the README's example ("When the server asks"), as written there. */
function readmeRules(): ElicitationRule[] {
  const readme = readFileSync(new URL("../../README.md", import.meta.url), "utf8");
  const section = readme.slice(readme.indexOf("## When the server asks"));
  const block = /```ts ignore\n([\s\S]*?)```/g;
  block.exec(section); // the handler's example
  const example = block.exec(section)![1];
  const list = /elicitation: (\[[\s\S]*?\n {2}\]),/.exec(example)![1];
  return new Function(`return ${list};`)() as ElicitationRule[];
}

const README_ASK: Round = {
  deploy: {
    method: "elicitation/create",
    params: {
      message: "Deploy the release?",
      requestedSchema: {
        type: "object",
        properties: {
          env: { type: "string", oneOf: [{ const: "stg", title: "Staging" }, { const: "prd" }] },
          replicas: { type: "integer", minimum: 1 },
        },
        required: ["env"],
      },
    },
  },
  confirm: {
    method: "elicitation/create",
    params: {
      message: "Confirm the window",
      requestedSchema: {
        type: "object",
        properties: { hours: { type: "integer", default: 2 } },
        required: ["hours"],
      },
    },
  },
  other: {
    method: "elicitation/create",
    params: { message: "Your \x1b[2Jname?", requestedSchema: { type: "object", properties: {} } },
  },
};

for (const mode of ["legacy-only", "modern-only"] as const) {
  test(`answer rules: the README's example (${mode}), and a hub entry's elicitation key`, async () => {
    const elicitation = readmeRules();
    const expected = {
      deploy: { action: "accept", content: { env: "stg", replicas: 2 } },
      confirm: { action: "accept", content: { hours: 2 } },
      other: { action: "cancel" },
    };
    {
      const { client, warnings } = fixtureClient({ mode }, { name: "deployer", elicitation });
      await using _ = client;
      const result = await client.callTool("mrtr", { plan: [README_ASK] });
      assertEquals(JSON.parse((result.content[0] as { text: string }).text).rounds[0], expected);
      assertEquals(warnings, [
        'No elicitation rule answers server deployer\'s request "Your name?": answered cancel',
      ]);
    }
    const warnings: string[] = [];
    await using servers = hub({
      servers: {
        fx: {
          transport: inProcess(createFixtureServer({ mode, listMrtr: true })),
          elicitation,
        },
      },
      onWarning: (message) => void warnings.push(message),
    });
    const result = await servers.callTool("fx__mrtr", { plan: [README_ASK] });
    assertEquals(JSON.parse((result.content[0] as { text: string }).text).rounds[0], expected);
    assert(
      warnings.some((w) => w.includes('request "Your name?": answered cancel')),
      warnings.join(),
    );
  });
}

test("answer rules: outside what the entries load at start, reachable when used", () => {
  const lazy = [
    "client/handler/answer_rules.ts",
    "protocol/elicitation_form.ts",
    "protocol/elicitation_field.ts",
  ];
  for (const entry of ["mod.ts", "http.ts"]) {
    const start = staticModules(entry);
    assertEquals(lazy.filter((path) => start.includes(path)), [], entry);
    // The check can fail: the entry's whole graph holds them.
    const all = staticModules(entry, undefined, { dynamic: true });
    assertEquals(lazy.filter((path) => all.includes(path)), lazy, entry);
  }
}, { timeout: 60_000 });

// Prompt-argument conversion: every argument the server receives is a string, strings pass
// unchanged, null and undefined are left out, and other JSON values arrive as their JSON;
// a value that cannot be sent is a TypeError, never another exception.
import fc from "fast-check";
import { assert, assertEquals, test } from "../_harness.ts";
import { promptArguments } from "../../client/requests/requests.ts";
import { fuzz } from "./_fuzz.ts";

fuzz(
  "prompt arguments: JSON values become strings, as text or as their JSON",
  () =>
    fc.property(
      fc.dictionary(fc.string(), fc.oneof(fc.jsonValue({ maxDepth: 2 }), fc.constant(undefined))),
      (args) => {
        const out = promptArguments(args);
        for (const [key, value] of Object.entries(args)) {
          if (value === null || value === undefined) {
            assert(!Object.hasOwn(out, key), `${key} left out`);
            continue;
          }
          const expected = typeof value === "string"
            ? value
            : typeof value === "number"
            ? String(value)
            : JSON.stringify(value);
          assertEquals(out[key], expected, key);
        }
        assertEquals(
          Object.keys(out).sort(),
          Object.keys(args).filter((k) => args[k] !== null && args[k] !== undefined).sort(),
        );
      },
    ),
);

fuzz(
  "prompt arguments: any value gives strings or a TypeError",
  () =>
    fc.property(
      fc.dictionary(fc.string(), fc.anything({ maxDepth: 2, withBigInt: true })),
      (args) => {
        try {
          const out = promptArguments(args);
          for (const value of Object.values(out)) assertEquals(typeof value, "string");
        } catch (error) {
          assert(error instanceof TypeError, String(error));
        }
      },
    ),
);

test("prompt arguments: an argument named __proto__ is sent like any other", () => {
  const args = JSON.parse('{"__proto__": false, "n": 1}') as Record<string, unknown>;
  const out = promptArguments(args);
  assertEquals(Object.keys(out), ["__proto__", "n"]);
  assertEquals(JSON.parse(JSON.stringify(out)), JSON.parse('{"__proto__": "false", "n": "1"}'));
  assertEquals(Object.getPrototypeOf(out), Object.prototype);
});

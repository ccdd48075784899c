// The WWW-Authenticate parser: challenges written by a server (any scheme, token or quoted
// parameters with any characters) parse back to what was written; any header value gives
// well-formed challenges and no exception.
import fc from "fast-check";
import { assert, assertEquals, test } from "../_harness.ts";
import { parseChallenges, readChallenge } from "../../oauth/challenge.ts";
import { fuzz } from "./_fuzz.ts";

const token = fc.stringMatching(/^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,10}$/);
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

const challenge = fc.record({
  scheme: token,
  params: fc.uniqueArray(fc.tuple(token, fc.oneof(fc.string(), fc.string({ unit: "grapheme" }))), {
    maxLength: 4,
    selector: ([name]) => name.toLowerCase(),
  }),
});

function quote(value: string): string {
  return `"${value.replace(/["\\]/g, (c) => `\\${c}`)}"`;
}

function write(challenges: { scheme: string; params: [string, string][] }[]): string {
  return challenges.map(({ scheme, params }) =>
    [scheme, params.map(([name, value]) => `${name}=${quote(value)}`).join(", ")]
      .filter((part) => part !== "").join(" ")
  ).join(", ");
}

fuzz(
  "challenge: challenges a server wrote parse back to what was written",
  () =>
    fc.property(fc.array(challenge, { maxLength: 4 }), (challenges) => {
      const parsed = parseChallenges(write(challenges));
      assertEquals(
        parsed,
        challenges.map(({ scheme, params }) => ({
          scheme,
          params: Object.fromEntries(params.map(([name, value]) => [name.toLowerCase(), value])),
        })),
      );
    }),
);

fuzz(
  "challenge: any header value gives well-formed challenges, never an exception",
  () =>
    fc.property(
      fc.oneof(
        fc.string(),
        fc.string({ unit: "binary" }),
        fc.array(challenge, { maxLength: 3 }).map(write).chain((text) =>
          fc.nat(text.length).map((n) => text.slice(0, n)) // cut anywhere
        ),
      ),
      (value) => {
        for (const { scheme, params } of parseChallenges(value)) {
          assert(TOKEN.test(scheme), scheme);
          for (const [name, v] of Object.entries(params)) {
            assert(TOKEN.test(name) && name === name.toLowerCase(), name);
            assertEquals(typeof v, "string");
          }
        }
        const summary = readChallenge(value);
        assert(typeof summary === "object" && summary !== null);
      },
    ),
  0.3, // generating arbitrary values costs more than checking them
);

test("challenge: a parameter named __proto__ is a parameter", () => {
  const [challenge] = parseChallenges('Bearer __proto__="x", realm="r"');
  assertEquals(Object.keys(challenge.params), ["__proto__", "realm"]);
  assertEquals(Object.getPrototypeOf(challenge.params), Object.prototype);
});

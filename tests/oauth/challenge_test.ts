// WWW-Authenticate parsing, table-driven.

import { assertEquals, test } from "../_harness.ts";
import { parseChallenges, readChallenge, splitScope } from "../../oauth/challenge.ts";

const PARSE: {
  header: string | null;
  expected: { scheme: string; params: Record<string, string> }[];
}[] = [
  { header: null, expected: [] },
  { header: "", expected: [] },
  { header: "Bearer", expected: [{ scheme: "Bearer", params: {} }] },
  {
    header:
      'Bearer resource_metadata="https://x.test/.well-known/oauth-protected-resource", scope="a b"',
    expected: [{
      scheme: "Bearer",
      params: {
        resource_metadata: "https://x.test/.well-known/oauth-protected-resource",
        scope: "a b",
      },
    }],
  },
  {
    header: 'Bearer error=invalid_token, Realm="r"',
    expected: [{ scheme: "Bearer", params: { error: "invalid_token", realm: "r" } }],
  },
  {
    header: 'Basic realm="x", Bearer scope="s", DPoP algs="ES256"',
    expected: [
      { scheme: "Basic", params: { realm: "x" } },
      { scheme: "Bearer", params: { scope: "s" } },
      { scheme: "DPoP", params: { algs: "ES256" } },
    ],
  },
  {
    header: 'Bearer error_description="say \\"no\\", please"',
    expected: [{ scheme: "Bearer", params: { error_description: 'say "no", please' } }],
  },
  { header: "Negotiate abc123==", expected: [{ scheme: "Negotiate", params: {} }] },
  {
    header: "Negotiate abc123==, Bearer realm=x",
    expected: [{ scheme: "Negotiate", params: {} }, { scheme: "Bearer", params: { realm: "x" } }],
  },
];

for (const [i, c] of PARSE.entries()) {
  test(`challenge: parse #${i} ${JSON.stringify(c.header)}`, () => {
    assertEquals(parseChallenges(c.header), c.expected);
  });
}

const READ: { header: string; expected: ReturnType<typeof readChallenge> }[] = [
  { header: "", expected: { scheme: "" } },
  {
    header:
      'Bearer scope="files:read files:write files:read", resource_metadata="https://m.test/prm"',
    expected: {
      scheme: "bearer",
      scope: ["files:read", "files:write"],
      resourceMetadata: "https://m.test/prm",
    },
  },
  {
    header: 'Bearer error="insufficient_scope", scope="w"',
    expected: { scheme: "bearer", error: "insufficient_scope", scope: ["w"] },
  },
  {
    header: 'Basic realm="x", DPoP error="use_dpop_nonce", resource_metadata="https://m.test/prm"',
    expected: {
      scheme: "dpop",
      error: "use_dpop_nonce",
      resourceMetadata: "https://m.test/prm",
      dpop: true,
    },
  },
  {
    header: 'Bearer realm="x", DPoP resource_metadata="https://m.test/prm"',
    expected: { scheme: "bearer", resourceMetadata: "https://m.test/prm", dpop: true },
  },
  { header: 'Bearer scope=""', expected: { scheme: "bearer" } },
];

for (const [i, c] of READ.entries()) {
  test(`challenge: read #${i}`, () => {
    assertEquals(readChallenge(c.header), c.expected);
    const response = new Response(null, {
      status: 401,
      headers: c.header ? { "www-authenticate": c.header } : {},
    });
    assertEquals(readChallenge(response), c.expected);
  });
}

test("challenge: splitScope", () => {
  assertEquals(splitScope(undefined), undefined);
  assertEquals(splitScope("  "), undefined);
  assertEquals(splitScope(" a\tb  a "), ["a", "b"]);
});

// Authorization requests and responses, table-driven: scope selection, the request URL,
// and the RFC 9207 iss / state / error checks of the callback.

import { assert, assertEquals, test } from "../_harness.ts";
import {
  callbackState,
  selectScopes,
  startAuthorization,
  validateCallback,
} from "../../oauth/authorize.ts";
import type { PendingAuthorization } from "../../oauth/store.ts";
import { McpError } from "../../protocol/errors.ts";

const SCOPES: [string, Parameters<typeof selectScopes>[0], string[] | undefined][] = [
  ["nothing → omitted", {}, undefined],
  ["challenge wins", { challenged: ["c"], resourceScopes: ["r1", "r2"] }, ["c"]],
  ["scopes_supported when no challenge scope", { resourceScopes: ["r1", "r2"] }, ["r1", "r2"]],
  ["configured wins", { configured: ["x"], challenged: ["c"] }, ["x"]],
  ["step-up union", { challenged: ["w"], previous: ["r", "w"] }, ["r", "w"]],
  ["step-up union, new last", { challenged: ["w"], previous: ["r"] }, ["r", "w"]],
  ["offline_access when listed", { challenged: ["a"], serverScopes: ["offline_access"] }, [
    "a",
    "offline_access",
  ]],
  ["no offline_access when not listed", { challenged: ["a"], serverScopes: ["a"] }, ["a"]],
  ["no offline_access when disabled", {
    challenged: ["a"],
    serverScopes: ["offline_access"],
    offlineAccess: false,
  }, ["a"]],
  ["no lone offline_access", { serverScopes: ["offline_access"] }, undefined],
  ["offline_access once", { challenged: ["offline_access"], serverScopes: ["offline_access"] }, [
    "offline_access",
  ]],
];

for (const [name, inputs, expected] of SCOPES) {
  test(`authorize: scopes: ${name}`, () => assertEquals(selectScopes(inputs), expected));
}

const METADATA = {
  issuer: "https://as.ex.com",
  authorization_endpoint: "https://as.ex.com/authorize?tenant=t1",
  token_endpoint: "https://as.ex.com/token",
  code_challenge_methods_supported: ["S256"],
};

test("authorize: the request URL carries PKCE S256, state, resource, scope", async () => {
  const { url, pending } = await startAuthorization({
    issuer: METADATA.issuer,
    metadata: METADATA,
    clientId: "c1",
    tokenEndpointAuthMethod: "none",
    redirectUri: "http://127.0.0.1:1/cb",
    resource: "https://mcp.ex.com/mcp",
    scopes: ["a", "b"],
    principal: "p",
    now: () => 42,
  });
  const q = url.searchParams;
  assertEquals(url.origin + url.pathname, "https://as.ex.com/authorize");
  assertEquals(q.get("tenant"), "t1", "existing query parameters are kept");
  assertEquals(q.get("response_type"), "code");
  assertEquals(q.get("client_id"), "c1");
  assertEquals(q.get("redirect_uri"), "http://127.0.0.1:1/cb");
  assertEquals(q.get("code_challenge_method"), "S256");
  assertEquals(q.get("scope"), "a b");
  assertEquals(q.get("resource"), "https://mcp.ex.com/mcp");
  assertEquals(q.get("state"), pending.state);
  assert(pending.codeVerifier.length >= 43);
  assert(!url.href.includes(pending.codeVerifier), "the verifier never leaves");
  const digest = await crypto.subtle.digest(
    "SHA-256",
    new TextEncoder().encode(pending.codeVerifier),
  );
  const challenge = btoa(String.fromCharCode(...new Uint8Array(digest))).replace(/\+/g, "-")
    .replace(/\//g, "_").replace(/=+$/, "");
  assertEquals(q.get("code_challenge"), challenge);
  assertEquals(pending.createdAt, 42);
  assertEquals(pending.scope, "a b");
});

test("authorize: scope is omitted when there are none", async () => {
  const { url, pending } = await startAuthorization({
    issuer: METADATA.issuer,
    metadata: METADATA,
    clientId: "c1",
    tokenEndpointAuthMethod: "none",
    redirectUri: "http://127.0.0.1:1/cb",
    resource: "https://mcp.ex.com/mcp",
    principal: "p",
  });
  assertEquals(url.searchParams.has("scope"), false);
  assertEquals(pending.scope, undefined);
});

test("authorize: no S256 or no authorization endpoint → refused", async () => {
  const cases: [Record<string, unknown>, string][] = [
    [{ ...METADATA, code_challenge_methods_supported: ["plain"] }, "pkce_unsupported"],
    [{ ...METADATA, code_challenge_methods_supported: undefined }, "pkce_unsupported"],
    [{ ...METADATA, authorization_endpoint: undefined }, "invalid_metadata"],
    [{ ...METADATA, authorization_endpoint: "http://as.ex.com/authorize" }, "insecure_endpoint"],
  ];
  for (const [metadata, reason] of cases) {
    try {
      await startAuthorization({
        issuer: METADATA.issuer,
        metadata: metadata as typeof METADATA,
        clientId: "c",
        tokenEndpointAuthMethod: "none",
        redirectUri: "http://127.0.0.1:1/cb",
        resource: "r",
        principal: "p",
      });
      throw new Error("accepted");
    } catch (error) {
      assert(error instanceof McpError, String(error));
      assertEquals(error.reason, reason);
    }
  }
});

function pending(advertised: boolean | undefined): PendingAuthorization {
  return {
    state: "s1",
    codeVerifier: "v".repeat(43),
    issuer: "https://as.ex.com",
    metadata: { ...METADATA, authorization_response_iss_parameter_supported: advertised },
    redirectUri: "http://127.0.0.1:1/cb",
    resource: "https://mcp.ex.com/mcp",
    clientId: "c1",
    tokenEndpointAuthMethod: "none",
    principal: "p",
    createdAt: 0,
  };
}

const ISS = "https://as.ex.com";
const CALLBACKS: [string, boolean | undefined, string, string | undefined][] = [
  ["advertised, correct", true, `code=c&state=s1&iss=${encodeURIComponent(ISS)}`, undefined],
  ["advertised, missing", true, "code=c&state=s1", "iss_missing"],
  ["advertised, wrong", true, "code=c&state=s1&iss=https%3A%2F%2Fevil.example.com", "iss_mismatch"],
  [
    "advertised, trailing slash",
    true,
    `code=c&state=s1&iss=${encodeURIComponent(`${ISS}/`)}`,
    "iss_mismatch",
  ],
  [
    "advertised, upper-case host",
    true,
    "code=c&state=s1&iss=https%3A%2F%2FAS.ex.com",
    "iss_mismatch",
  ],
  [
    "advertised, default port",
    true,
    `code=c&state=s1&iss=${encodeURIComponent("https://as.ex.com:443")}`,
    "iss_mismatch",
  ],
  ["not advertised, absent", false, "code=c&state=s1", undefined],
  ["absent flag, absent", undefined, "code=c&state=s1", undefined],
  ["not advertised, correct", false, `code=c&state=s1&iss=${encodeURIComponent(ISS)}`, undefined],
  [
    "not advertised, wrong",
    false,
    "code=c&state=s1&iss=https%3A%2F%2Fevil.example.com",
    "iss_mismatch",
  ],
  [
    "wrong iss hides the error",
    true,
    "error=access_denied&state=s1&iss=https%3A%2F%2Fevil.example.com",
    "iss_mismatch",
  ],
  ["wrong state", true, `code=c&state=s2&iss=${encodeURIComponent(ISS)}`, "state_mismatch"],
  ["no state", false, "code=c", "state_mismatch"],
  ["error", false, "error=access_denied&error_description=no&state=s1", "authorization_denied"],
  ["no code", false, "state=s1", "invalid_callback"],
];

for (const [name, advertised, query, reason] of CALLBACKS) {
  test(`authorize: callback ${name} → ${reason ?? "accepted"}`, () => {
    for (
      const form of [`http://127.0.0.1:1/cb?${query}`, `?${query}`, new URLSearchParams(query)]
    ) {
      try {
        const params = validateCallback(pending(advertised), form);
        assertEquals(reason, undefined, "accepted");
        assertEquals(params.get("code"), "c");
      } catch (error) {
        assert(error instanceof McpError, String(error));
        assertEquals(error.kind, "auth");
        assertEquals(error.reason, reason);
        if (reason === "iss_mismatch") assert(!error.message.includes("access_denied"));
      }
    }
  });
}

test("authorize: callbackState", () => {
  assertEquals(callbackState("http://x.test/cb?state=a&code=b"), "a");
  assertEquals(callbackState("state=z"), "z");
  assertEquals(callbackState(new URL("http://x.test/cb")), undefined);
});

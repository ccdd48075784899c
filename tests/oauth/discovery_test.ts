// Discovery, table-driven: metadata URLs in spec order, the checks of each response, and
// the chain (with the 2025-03-26 fallbacks) over an in-memory fetch.

import { assert, assertEquals, assertRejects, test } from "../_harness.ts";
import { discover } from "../../oauth/discovery.ts";
import {
  processProtectedResourceMetadataResponse,
  protectedResourceMetadataUrls,
  resourceMatches,
} from "../../oauth/resource_metadata.ts";
import {
  authorizationServerMetadataUrls,
  defaultAuthorizationServerMetadata,
  processAuthorizationServerMetadataResponse,
} from "../../oauth/server_metadata.ts";
import { McpError } from "../../protocol/errors.ts";

test("discovery: protected resource metadata URLs in spec order", () => {
  const cases: [string, string | undefined, string[]][] = [
    ["https://ex.com/public/mcp", undefined, [
      "https://ex.com/.well-known/oauth-protected-resource/public/mcp",
      "https://ex.com/.well-known/oauth-protected-resource",
    ]],
    ["https://ex.com/mcp/", undefined, [
      "https://ex.com/.well-known/oauth-protected-resource/mcp",
      "https://ex.com/.well-known/oauth-protected-resource",
    ]],
    ["https://ex.com/", undefined, ["https://ex.com/.well-known/oauth-protected-resource"]],
    ["https://ex.com/mcp", "https://ex.com/custom/prm.json", [
      "https://ex.com/custom/prm.json",
      "https://ex.com/.well-known/oauth-protected-resource/mcp",
      "https://ex.com/.well-known/oauth-protected-resource",
    ]],
    ["https://ex.com/mcp", "https://ex.com/.well-known/oauth-protected-resource/mcp", [
      "https://ex.com/.well-known/oauth-protected-resource/mcp",
      "https://ex.com/.well-known/oauth-protected-resource",
    ]],
  ];
  for (const [server, hint, expected] of cases) {
    assertEquals(
      protectedResourceMetadataUrls(new URL(server), hint).map((u) => u.href),
      expected,
      server,
    );
  }
});

test("discovery: authorization server metadata URLs in spec order", () => {
  assertEquals(authorizationServerMetadataUrls("https://auth.ex.com").map((u) => u.href), [
    "https://auth.ex.com/.well-known/oauth-authorization-server",
    "https://auth.ex.com/.well-known/openid-configuration",
  ]);
  assertEquals(authorizationServerMetadataUrls("https://auth.ex.com/tenant1/").map((u) => u.href), [
    "https://auth.ex.com/.well-known/oauth-authorization-server/tenant1",
    "https://auth.ex.com/.well-known/openid-configuration/tenant1",
    "https://auth.ex.com/tenant1/.well-known/openid-configuration",
  ]);
});

test("discovery: resourceMatches", () => {
  const server = new URL("https://ex.com/api/mcp");
  const cases: [string, boolean][] = [
    ["https://ex.com/api/mcp", true],
    ["https://ex.com/api/mcp/", true],
    ["https://ex.com/api", true],
    ["https://ex.com", true],
    ["https://ex.com/", true],
    ["https://EX.com/api/mcp", true],
    ["https://ex.com/api/mcp2", false],
    ["https://ex.com/other", false],
    ["http://ex.com/api/mcp", false],
    ["https://ex.com:8443/api/mcp", false],
    ["https://evil.example.com/api/mcp", false],
    ["https://ex.com/api/mcp#frag", false],
    ["not a url", false],
  ];
  for (const [resource, expected] of cases) {
    assertEquals(resourceMatches(resource, server), expected, resource);
  }
});

async function reason(promise: Promise<unknown>): Promise<string | undefined> {
  try {
    await promise;
  } catch (error) {
    assert(error instanceof McpError, String(error));
    assertEquals(error.kind, "auth");
    return error.reason;
  }
  return "resolved";
}

test("discovery: processing protected resource metadata", async () => {
  const server = new URL("https://mcp.ex.com/mcp");
  const ok = { resource: "https://mcp.ex.com/mcp", authorization_servers: ["https://as.ex.com"] };
  const cases: [Response, string | undefined][] = [
    [Response.json(ok), undefined],
    [Response.json({ authorization_servers: ["https://as.ex.com"] }), undefined],
    [new Response("nope", { status: 404 }), "absent"],
    [new Response("oops", { status: 500 }), "absent"],
    [new Response("not json"), "invalid_metadata"],
    [Response.json({ resource: ok.resource }), "invalid_metadata"],
    [Response.json({ ...ok, authorization_servers: [] }), "invalid_metadata"],
    [Response.json({ ...ok, authorization_servers: [1] }), "invalid_metadata"],
    [Response.json({ ...ok, scopes_supported: "a b" }), "invalid_metadata"],
    [Response.json({ ...ok, resource: "https://evil.example.com/mcp" }), "resource_mismatch"],
    [Response.json({ ...ok, resource: 42 }), "resource_mismatch"],
  ];
  for (const [i, [response, expected]] of cases.entries()) {
    const run = processProtectedResourceMetadataResponse(server, response);
    if (expected === "absent") assertEquals(await run, undefined, `#${i}`);
    else if (expected === undefined) assert((await run) !== undefined, `#${i}`);
    else assertEquals(await reason(run), expected, `#${i}`);
  }
});

test("discovery: processing authorization server metadata (exact issuer)", async () => {
  const issuer = "https://as.ex.com/tenant1";
  const base = { issuer, token_endpoint: `${issuer}/token` };
  const cases: [Response, string | undefined][] = [
    [Response.json(base), undefined],
    [new Response(null, { status: 404 }), "absent"],
    [Response.json({ ...base, issuer: `${issuer}/` }), "issuer_mismatch"],
    [Response.json({ ...base, issuer: "https://AS.ex.com/tenant1" }), "issuer_mismatch"],
    [Response.json({ ...base, issuer: "https://attacker.example.com" }), "issuer_mismatch"],
    [Response.json({ token_endpoint: base.token_endpoint }), "issuer_mismatch"],
    [Response.json({ issuer }), "invalid_metadata"],
    [Response.json({ ...base, registration_endpoint: 5 }), "invalid_metadata"],
    [new Response("<html>"), "invalid_metadata"],
  ];
  for (const [i, [response, expected]] of cases.entries()) {
    const run = processAuthorizationServerMetadataResponse(issuer, response);
    if (expected === "absent") assertEquals(await run, undefined, `#${i}`);
    else if (expected === undefined) assertEquals((await run)?.issuer, issuer, `#${i}`);
    else assertEquals(await reason(run), expected, `#${i}`);
  }
});

function fetchOf(documents: Record<string, unknown>, seen: string[] = []) {
  return (input: Request | URL | string) => {
    const url = new URL(String(input instanceof Request ? input.url : input));
    seen.push(url.href);
    const doc = documents[url.href];
    return Promise.resolve(
      doc === undefined ? new Response(null, { status: 404 }) : Response.json(doc),
    );
  };
}

const AS = {
  issuer: "https://as.ex.com",
  authorization_endpoint: "https://as.ex.com/authorize",
  token_endpoint: "https://as.ex.com/token",
  code_challenge_methods_supported: ["S256"],
};

test("discovery: the chain, from the challenge's metadata URL", async () => {
  const seen: string[] = [];
  const found = await discover(new URL("https://mcp.ex.com/mcp"), {
    resourceMetadataUrl: "https://mcp.ex.com/custom.json",
    fetch: fetchOf({
      "https://mcp.ex.com/custom.json": {
        resource: "https://mcp.ex.com",
        authorization_servers: [AS.issuer],
      },
      "https://as.ex.com/.well-known/openid-configuration": AS,
    }, seen),
  });
  assertEquals(found.source, "metadata");
  assertEquals(found.resource, "https://mcp.ex.com", "sent exactly as published");
  assertEquals(seen, [
    "https://mcp.ex.com/custom.json",
    "https://as.ex.com/.well-known/oauth-authorization-server",
    "https://as.ex.com/.well-known/openid-configuration",
  ]);
});

test("discovery: a mismatched issuer is never used, even if a later URL fails", async () => {
  const fetch = fetchOf({
    "https://mcp.ex.com/.well-known/oauth-protected-resource/mcp": {
      resource: "https://mcp.ex.com/mcp",
      authorization_servers: [AS.issuer],
    },
    "https://as.ex.com/.well-known/oauth-authorization-server": {
      ...AS,
      issuer: "https://attacker.example.com",
    },
  });
  assertEquals(
    await reason(discover(new URL("https://mcp.ex.com/mcp"), { fetch })),
    "issuer_mismatch",
  );
});

test("discovery: 2025-03-26 fallbacks (no protected resource metadata)", async () => {
  const server = new URL("https://mcp.ex.com/v1/mcp");
  const legacy = await discover(server, {
    fetch: fetchOf({
      "https://mcp.ex.com/.well-known/oauth-authorization-server": {
        ...AS,
        issuer: "https://mcp.ex.com",
        token_endpoint: "https://mcp.ex.com/oauth/token",
      },
    }),
  });
  assertEquals(legacy.source, "legacy_metadata");
  assertEquals(legacy.metadata.token_endpoint, "https://mcp.ex.com/oauth/token");
  assertEquals(legacy.resource, "https://mcp.ex.com/v1/mcp");
  const defaults = await discover(server, { fetch: fetchOf({}) });
  assertEquals(defaults.source, "legacy_defaults");
  assertEquals(defaults.metadata, defaultAuthorizationServerMetadata(server));
  assertEquals(defaults.metadata.authorization_endpoint, "https://mcp.ex.com/authorize");
});

test("discovery: no metadata for the listed issuer → no_authorization_server", async () => {
  const fetch = fetchOf({
    "https://mcp.ex.com/.well-known/oauth-protected-resource": {
      authorization_servers: [AS.issuer],
    },
  });
  assertEquals(
    await reason(discover(new URL("https://mcp.ex.com/"), { fetch })),
    "no_authorization_server",
  );
});

test("discovery: plain http is refused except on loopback hosts", async () => {
  const fetch = fetchOf({
    "https://mcp.ex.com/.well-known/oauth-protected-resource": {
      authorization_servers: ["http://as.ex.com"],
    },
  });
  assertEquals(
    await reason(discover(new URL("https://mcp.ex.com/"), { fetch })),
    "insecure_endpoint",
  );
  const endpoints = fetchOf({
    "https://mcp.ex.com/.well-known/oauth-protected-resource": {
      authorization_servers: [AS.issuer],
    },
    "https://as.ex.com/.well-known/oauth-authorization-server": {
      ...AS,
      token_endpoint: "http://as.ex.com/token",
    },
  });
  assertEquals(
    await reason(discover(new URL("https://mcp.ex.com/"), { fetch: endpoints })),
    "insecure_endpoint",
  );
  const local = fetchOf({
    "http://127.0.0.1:9/.well-known/oauth-protected-resource": {
      authorization_servers: ["http://localhost:8"],
    },
    "http://localhost:8/.well-known/oauth-authorization-server": {
      ...AS,
      issuer: "http://localhost:8",
      token_endpoint: "http://localhost:8/token",
    },
  });
  assertEquals(
    (await discover(new URL("http://127.0.0.1:9/"), { fetch: local })).issuer,
    "http://localhost:8",
  );
});

test("discovery: network failures are auth errors without response bodies", async () => {
  await assertRejects(
    () =>
      discover(new URL("https://mcp.ex.com/mcp"), {
        fetch: () => Promise.reject(new TypeError("boom")),
      }),
    McpError,
    "Cannot reach",
  );
});

test("discovery: selectAuthorizationServer picks among several", async () => {
  const found = await discover(new URL("https://mcp.ex.com/"), {
    selectAuthorizationServer: (issuers) => issuers[1],
    fetch: fetchOf({
      "https://mcp.ex.com/.well-known/oauth-protected-resource": {
        authorization_servers: ["https://a.ex.com", AS.issuer],
      },
      "https://as.ex.com/.well-known/oauth-authorization-server": AS,
    }),
  });
  assertEquals(found.issuer, AS.issuer);
});

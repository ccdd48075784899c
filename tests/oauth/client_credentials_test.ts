// Client credentials: secret and private_key_jwt (checked by a token endpoint that verifies
// the assertion with jose), the JWT bearer grant, and the middleware around them.

import { exportPKCS8, generateKeyPair, jwtVerify } from "jose";
import { Hono } from "hono";
import { assert, assertEquals, assertThrows, test } from "../_harness.ts";
import {
  checkClientCredentials,
  JWT_BEARER_GRANT,
  tokenClient,
} from "../../oauth/client_credentials.ts";
import { clientCredentialsToken } from "../../oauth/client_credentials_grant.ts";
import { ID_JAG_TOKEN_TYPE, idJagAssertion } from "../../oauth/enterprise.ts";
import { withClientCredentials } from "../../oauth/middleware.ts";
import { serve } from "../../runtime/serve.ts";
import { startOAuthFixture } from "../fixtures/oauth_server.ts";
import { McpError } from "../../protocol/errors.ts";

test("client credentials: option checks name the bad key", () => {
  const cases: [unknown, string][] = [
    [null, "must be an object"],
    [{}, "clientId"],
    [{ clientId: "c" }, "needs a clientSecret, a privateKey or an assertion"],
    [{ clientId: "c", clientSecret: 5 }, "clientSecret"],
    [{ clientId: "c", privateKey: 5 }, "privateKey"],
    [{ clientId: "c", assertion: 5 }, "assertion"],
  ];
  for (const [value, message] of cases) {
    assertThrows(() => checkClientCredentials(value, "cc"), TypeError, message);
  }
  assertThrows(() => withClientCredentials({ clientId: "c" } as never), TypeError, "options");
});

test("client credentials: secret through the middleware, re-obtained after a 401", async () => {
  await using as = await startOAuthFixture({
    clients: { svc: "s3cret" },
    scopesSupported: ["mcp:read"],
  });
  const f = withClientCredentials({ clientId: "svc", clientSecret: "s3cret" })((i, init) =>
    fetch(i, init)
  );
  assertEquals((await f(as.url, { method: "POST", body: "{}" })).status, 200);
  const token = as.requests.find((r) => r.path === "/token")!;
  assertEquals([token.params.grant_type, token.params.scope, token.params.resource], [
    "client_credentials",
    "mcp:read",
    as.url.href,
  ]);
  assertEquals(token.authorization, `Basic ${btoa("svc:s3cret")}`);
  as.revokeAccessTokens();
  assertEquals((await f(as.url, { method: "POST", body: "{}" })).status, 200);
  assertEquals(as.count("/token"), 2);
  assertEquals(as.count("/authorize") + as.count("/register"), 0);
});

test("client credentials: a wrong secret fails with the OAuth error, not the secret", async () => {
  await using as = await startOAuthFixture({ clients: { svc: "right" } });
  const f = withClientCredentials({ clientId: "svc", clientSecret: "wrong-secret-value" })((
    i,
    init,
  ) => fetch(i, init));
  try {
    await f(as.url, { method: "POST", body: "{}" });
    throw new Error("accepted");
  } catch (error) {
    assert(error instanceof McpError, String(error));
    assertEquals([error.kind, error.reason], ["auth", "token_failed"]);
    assert(error.message.includes("invalid_client"), error.message);
    assert(!error.message.includes("wrong-secret-value"));
  }
});

async function assertionServer() {
  const { publicKey, privateKey } = await generateKeyPair("ES256", { extractable: true });
  const pem = await exportPKCS8(privateKey);
  const bodies: Record<string, string>[] = [];
  let origin = "";
  const app = new Hono();
  app.post("/token", async (c) => {
    const body = Object.fromEntries(new URLSearchParams(await c.req.text()));
    bodies.push(body);
    if (body.grant_type === JWT_BEARER_GRANT) {
      return c.json({ access_token: "wif-at", token_type: "Bearer", expires_in: 60 });
    }
    const { payload } = await jwtVerify(body.client_assertion, publicKey, { audience: origin });
    assertEquals([payload.iss, payload.sub], ["svc", "svc"]);
    assert(typeof payload.exp === "number" && typeof payload.jti === "string");
    return c.json({ access_token: "jwt-at", token_type: "Bearer", expires_in: 60 });
  });
  const server = await serve(app.fetch);
  origin = server.url.origin;
  const metadata = {
    issuer: origin,
    token_endpoint: `${origin}/token`,
    token_endpoint_auth_methods_supported: ["private_key_jwt"],
    token_endpoint_auth_signing_alg_values_supported: ["ES256"],
  };
  return { server, pem, bodies, metadata };
}

test("client credentials: private_key_jwt with a PEM key (aud = issuer, iss = sub = client)", async () => {
  const { server, pem, bodies, metadata } = await assertionServer();
  await using _ = server;
  const client = await tokenClient({ clientId: "svc", privateKey: pem }, metadata);
  assertEquals(client.method, "private_key_jwt");
  const tokens = await clientCredentialsToken({
    metadata,
    client,
    resource: "https://mcp.ex.com/mcp",
  }, { scope: "a" });
  assertEquals(tokens.accessToken, "jwt-at");
  assertEquals(
    bodies[0].client_assertion_type,
    "urn:ietf:params:oauth:client-assertion-type:jwt-bearer",
  );
  assertEquals([bodies[0].grant_type, bodies[0].scope, bodies[0].resource], [
    "client_credentials",
    "a",
    "https://mcp.ex.com/mcp",
  ]);
  try {
    await tokenClient({ clientId: "svc", privateKey: "not a pem" }, metadata);
    throw new Error("accepted");
  } catch (error) {
    assert(error instanceof McpError && error.reason === "invalid_client_key", String(error));
    assert(!error.message.includes("not a pem"));
  }
});

test("client credentials: the JWT bearer grant sends the assertion (from a function)", async () => {
  const { server, bodies, metadata } = await assertionServer();
  await using _ = server;
  const credentials = {
    clientId: "workload",
    assertion: () => Promise.resolve("header.payload.sig"),
  };
  const client = await tokenClient(credentials, metadata);
  assertEquals(client.method, "none");
  const tokens = await clientCredentialsToken({ metadata, client, resource: "r" }, {
    assertion: credentials.assertion,
  });
  assertEquals(tokens.accessToken, "wif-at");
  assertEquals([bodies[0].grant_type, bodies[0].assertion, bodies[0].client_id], [
    JWT_BEARER_GRANT,
    "header.payload.sig",
    "workload",
  ]);
});

test("client credentials: an ID-JAG from the identity provider feeds the JWT bearer grant", async () => {
  const { server, bodies, metadata } = await assertionServer();
  await using _ = server;
  const exchanges: Record<string, string>[] = [];
  const idp = new Hono();
  idp.post("/token", async (c) => {
    const body = Object.fromEntries(new URLSearchParams(await c.req.text()));
    exchanges.push(body);
    if (body.subject_token !== "id-token-1") return c.json({ error: "invalid_grant" }, 400);
    return c.json({
      access_token: "the-id-jag",
      issued_token_type: ID_JAG_TOKEN_TYPE,
      token_type: "N_A",
    });
  });
  await using idpServer = await serve(idp.fetch);
  const assertion = idJagAssertion({
    tokenEndpoint: new URL("/token", idpServer.url).href,
    idToken: () => "id-token-1",
    clientId: "app-at-idp",
  });
  const client = await tokenClient({ clientId: "mcp-client", clientSecret: "s", assertion }, {
    ...metadata,
    token_endpoint_auth_methods_supported: ["client_secret_basic"],
  });
  const tokens = await clientCredentialsToken({
    metadata,
    client,
    resource: "https://mcp.ex.com/mcp",
  }, { assertion, scope: "a" });
  assertEquals(tokens.accessToken, "wif-at");
  assertEquals(exchanges[0], {
    grant_type: "urn:ietf:params:oauth:grant-type:token-exchange",
    requested_token_type: ID_JAG_TOKEN_TYPE,
    subject_token: "id-token-1",
    subject_token_type: "urn:ietf:params:oauth:token-type:id_token",
    audience: metadata.issuer,
    resource: "https://mcp.ex.com/mcp",
    scope: "a",
    client_id: "app-at-idp",
  });
  assertEquals([bodies[0].grant_type, bodies[0].assertion], [JWT_BEARER_GRANT, "the-id-jag"]);
  // A refused exchange is reported as such, without the ID token.
  const refused = idJagAssertion({
    tokenEndpoint: new URL("/token", idpServer.url).href,
    idToken: "stale-id-token",
  });
  try {
    await clientCredentialsToken({ metadata, client, resource: "r" }, { assertion: refused });
    throw new Error("accepted");
  } catch (error) {
    assert(error instanceof McpError && error.reason === "assertion_failed", String(error));
    assert(error.message.includes("invalid_grant") && !error.message.includes("stale-id-token"));
  }
});

// Client selection and dynamic registration, table-driven over in-memory responses.

import { assert, assertEquals, test } from "../_harness.ts";
import {
  processRegistrationResponse,
  registrationAuthMethod,
  registrationBody,
} from "../../oauth/dynamic_registration.ts";
import { resolveClient } from "../../oauth/registration.ts";
import { memoryTokenStore } from "../../oauth/store.ts";
import { McpError } from "../../protocol/errors.ts";

const ISSUER = "https://as.ex.com";
const META = { issuer: ISSUER, registration_endpoint: `${ISSUER}/register` };

test("registration: the auth method asked for", () => {
  const cases: [string[] | undefined, string][] = [
    [undefined, "client_secret_basic"],
    [["none"], "none"],
    [["client_secret_basic", "none"], "none"],
    [["client_secret_post"], "client_secret_post"],
    [["client_secret_post", "client_secret_basic"], "client_secret_basic"],
    [["private_key_jwt"], "none"],
  ];
  for (const [supported, expected] of cases) {
    assertEquals(
      registrationAuthMethod({ issuer: ISSUER, token_endpoint_auth_methods_supported: supported }),
      expected,
    );
  }
});

test("registration: the body (application_type, grant types, names)", () => {
  const native = registrationBody(META, ["http://127.0.0.1:8765/cb"], {
    clientName: "App",
    clientUri: "https://app.ex.com",
  });
  assertEquals(native.application_type, "native");
  assertEquals(native.grant_types, ["authorization_code", "refresh_token"]);
  assertEquals(native.response_types, ["code"]);
  assertEquals(native.client_name, "App");
  assertEquals(native.client_uri, "https://app.ex.com");
  assertEquals(registrationBody(META, ["http://localhost:1/cb"]).application_type, "native");
  assertEquals(registrationBody(META, ["com.example.app:/cb"]).application_type, "native");
  assertEquals(registrationBody(META, ["https://app.ex.com/cb"]).application_type, "web");
  assertEquals(
    registrationBody(META, ["https://app.ex.com/cb"], { applicationType: "native" })
      .application_type,
    "native",
  );
});

test("registration: processing responses", async () => {
  const uris = ["http://127.0.0.1:1/cb"];
  const ok = await processRegistrationResponse(
    ISSUER,
    Response.json({
      client_id: "c1",
      client_secret: "s1",
      client_secret_expires_at: 2_000_000_000,
      token_endpoint_auth_method: "client_secret_post",
    }, { status: 201 }),
    uris,
  );
  assertEquals(ok, {
    issuer: ISSUER,
    clientId: "c1",
    clientSecret: "s1",
    clientSecretExpiresAt: 2_000_000_000_000,
    tokenEndpointAuthMethod: "client_secret_post",
    redirectUris: uris,
  });
  const plain = await processRegistrationResponse(
    ISSUER,
    Response.json({ client_id: "c2", client_secret_expires_at: 0 }),
    uris,
  );
  assertEquals(plain.clientSecret, undefined);
  for (
    const [response, message] of [
      [
        Response.json({ error: "invalid_redirect_uri", error_description: "bad uri" }, {
          status: 400,
        }),
        "invalid_redirect_uri: bad uri",
      ],
      [new Response("<html>", { status: 500 }), "HTTP 500"],
      [Response.json({ client_secret: "x" }, { status: 201 }), "no client_id"],
    ] as const
  ) {
    try {
      await processRegistrationResponse(ISSUER, response, uris);
      throw new Error("accepted");
    } catch (error) {
      assert(error instanceof McpError && error.reason === "registration_failed", String(error));
      assert(error.message.includes(message), error.message);
    }
  }
});

function registrar(seen: unknown[]) {
  return (_input: Request | URL | string, init?: RequestInit) => {
    const body = JSON.parse(String(init?.body));
    seen.push(body);
    return Promise.resolve(
      Response.json({ client_id: `dyn-${seen.length}`, redirect_uris: body.redirect_uris }, {
        status: 201,
      }),
    );
  };
}

test("registration: priority — pre-registered, CIMD, kept, dynamic", async () => {
  const store = memoryTokenStore();
  const seen: unknown[] = [];
  const base = {
    issuer: ISSUER,
    redirectUri: "http://127.0.0.1:1/cb",
    store,
    fetch: registrar(seen),
  };
  const cimd = "https://app.ex.com/client.json";

  const pre = await resolveClient({
    ...base,
    metadata: META,
    client: { clientId: "pre", clientSecret: "s" },
    clientMetadataUrl: cimd,
  });
  assertEquals([pre.clientId, pre.clientSecret], ["pre", "s"]);

  const url = await resolveClient({
    ...base,
    metadata: { ...META, client_id_metadata_document_supported: true },
    clientMetadataUrl: cimd,
  });
  assertEquals([url.clientId, url.tokenEndpointAuthMethod], [cimd, "none"]);

  const first = await resolveClient({ ...base, metadata: META, clientMetadataUrl: cimd });
  assertEquals(first.clientId, "dyn-1", "no CIMD support → dynamic registration");
  const again = await resolveClient({ ...base, metadata: META });
  assertEquals(again.clientId, "dyn-1", "kept for the issuer");
  const moved = await resolveClient({
    ...base,
    redirectUri: "http://127.0.0.1:2/cb",
    metadata: META,
  });
  assertEquals(moved.clientId, "dyn-2", "a new redirect URI registers again");
  const other = await resolveClient({
    ...base,
    issuer: "https://as2.ex.com",
    metadata: { ...META, issuer: "https://as2.ex.com" },
  });
  assertEquals(other.clientId, "dyn-3", "never reused at another issuer");
  assertEquals(seen.length, 3);
});

test("registration: a pre-registered client for another issuer, or no way to get one", async () => {
  const store = memoryTokenStore();
  for (
    const [options, reason] of [
      [
        { metadata: META, client: { clientId: "pre", issuer: "https://other.ex.com" } },
        "client_mismatch",
      ],
      [{ metadata: { issuer: ISSUER } }, "no_client"],
    ] as const
  ) {
    try {
      await resolveClient({
        issuer: ISSUER,
        redirectUri: "http://127.0.0.1:1/cb",
        store,
        ...options,
      });
      throw new Error("accepted");
    } catch (error) {
      assert(error instanceof McpError, String(error));
      assertEquals(error.reason, reason);
    }
  }
});

test("registration: an expiring client secret is replaced", async () => {
  const store = memoryTokenStore();
  await store.setClient(ISSUER, {
    issuer: ISSUER,
    clientId: "old",
    clientSecret: "s",
    clientSecretExpiresAt: Date.now() + 1000,
    redirectUris: ["http://127.0.0.1:1/cb"],
  });
  const seen: unknown[] = [];
  const client = await resolveClient({
    issuer: ISSUER,
    metadata: META,
    redirectUri: "http://127.0.0.1:1/cb",
    store,
    fetch: registrar(seen),
  });
  assertEquals(client.clientId, "dyn-1");
});

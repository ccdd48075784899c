// The token endpoint, table-driven over in-memory responses: the auth method chosen, how
// each method sends the credentials, token responses → TokenSet, refresh keeping the old
// refresh token, freshness, and the DPoP nonce retry.

import { assert, assertEquals, test } from "../_harness.ts";
import { chooseAuthMethod, clientAuthentication } from "../../oauth/client_auth.ts";
import { refreshRequest, type TokenContext, withNonceRetry } from "../../oauth/token.ts";
import { isFresh, processTokenResponse } from "../../oauth/token_response.ts";
import { McpError } from "../../protocol/errors.ts";

const META = { issuer: "https://as.ex.com", token_endpoint: "https://as.ex.com/token" };

test("token: chooseAuthMethod", () => {
  const cases: [string | undefined, boolean, string[] | undefined, string][] = [
    [undefined, false, undefined, "none"],
    [undefined, true, undefined, "client_secret_basic"],
    [undefined, true, ["client_secret_post"], "client_secret_post"],
    [undefined, true, ["none"], "none"],
    [undefined, true, ["private_key_jwt"], "client_secret_basic"],
    ["client_secret_post", true, ["client_secret_basic"], "client_secret_post"],
    ["client_secret_basic", false, undefined, "none"],
    ["none", true, undefined, "none"],
    ["private_key_jwt", false, undefined, "private_key_jwt"],
  ];
  for (const [registered, secret, supported, expected] of cases) {
    assertEquals(
      chooseAuthMethod(registered, secret, {
        ...META,
        token_endpoint_auth_methods_supported: supported,
      }),
      expected,
      `${registered} ${secret} ${supported}`,
    );
  }
});

test("token: how each method authenticates", async () => {
  const apply = async (client: Parameters<typeof clientAuthentication>[0]) => {
    const body = new URLSearchParams();
    const headers = new Headers();
    await clientAuthentication(client)(META, { client_id: client.clientId }, body, headers);
    return { body: Object.fromEntries(body), authorization: headers.get("authorization") };
  };
  assertEquals(
    await apply({ clientId: "c-1", clientSecret: "s-1", method: "client_secret_basic" }),
    {
      body: {},
      authorization: `Basic ${btoa("c-1:s-1")}`,
    },
  );
  assertEquals(
    (await apply({ clientId: "a:b", clientSecret: "p w", method: "client_secret_basic" }))
      .authorization,
    `Basic ${btoa("a%3Ab:p+w")}`,
    "form-encoded where needed",
  );
  assertEquals(await apply({ clientId: "c", clientSecret: "s", method: "client_secret_post" }), {
    body: { client_id: "c", client_secret: "s" },
    authorization: null,
  });
  assertEquals(await apply({ clientId: "c", method: "none" }), {
    body: { client_id: "c" },
    authorization: null,
  });
  let threw = false;
  try {
    clientAuthentication({ clientId: "c", method: "client_secret_basic" });
  } catch (error) {
    threw = error instanceof TypeError;
  }
  assert(threw, "a secret method without a secret");
});

function ctx(now = 1_000): TokenContext {
  return {
    metadata: META,
    client: { clientId: "c", method: "none" },
    resource: "https://mcp.ex.com/mcp",
    now: () => now,
  };
}

test("token: responses become TokenSets", async () => {
  const tokens = await processTokenResponse(
    ctx(),
    Response.json({
      access_token: "at",
      token_type: "bearer",
      expires_in: 60,
      refresh_token: "rt",
      scope: "a b",
    }),
    { grant: "authorization_code", scope: "a" },
  );
  assertEquals(tokens, {
    accessToken: "at",
    tokenType: "Bearer",
    refreshToken: "rt",
    expiresAt: 61_000,
    scope: "a b",
    issuer: META.issuer,
    resource: "https://mcp.ex.com/mcp",
  });
  const dpop = await processTokenResponse(
    ctx(),
    Response.json({ access_token: "at", token_type: "DPoP" }),
    { grant: "other" },
  );
  assertEquals([dpop.tokenType, dpop.expiresAt, dpop.scope], ["DPoP", undefined, undefined]);
});

test("token: a refresh without a new refresh token keeps the old one and the scope", async () => {
  const previous = {
    accessToken: "old",
    tokenType: "Bearer" as const,
    refreshToken: "rt-1",
    scope: "a",
    issuer: META.issuer,
    resource: "r",
  };
  const next = await processTokenResponse(
    ctx(),
    Response.json({ access_token: "new", token_type: "Bearer" }),
    {
      grant: "refresh_token",
      previous,
    },
  );
  assertEquals([next.accessToken, next.refreshToken, next.scope], ["new", "rt-1", "a"]);
  const rotated = await processTokenResponse(
    ctx(),
    Response.json({ access_token: "n2", token_type: "Bearer", refresh_token: "rt-2" }),
    {
      grant: "refresh_token",
      previous,
    },
  );
  assertEquals(rotated.refreshToken, "rt-2");
});

test("token: error responses keep the OAuth error code and never the body's secrets", async () => {
  const cases: [Response, string, string][] = [
    [
      Response.json({ error: "invalid_grant", error_description: "expired" }, { status: 400 }),
      "refresh_token",
      "refresh_failed",
    ],
    [
      Response.json({ error: "invalid_client" }, { status: 401 }),
      "authorization_code",
      "token_failed",
    ],
    [
      Response.json({ access_token: "leaked-token-123", token_type: "weird" }),
      "authorization_code",
      "token_failed",
    ],
    [Response.json({ token_type: "Bearer" }), "authorization_code", "token_failed"],
    [new Response("<html>", { status: 502 }), "authorization_code", "token_failed"],
  ];
  for (const [response, grant, reason] of cases) {
    try {
      await processTokenResponse(ctx(), response, { grant: grant as "authorization_code" });
      throw new Error("accepted");
    } catch (error) {
      assert(error instanceof McpError, String(error));
      assertEquals(error.reason, reason);
      assert(!error.message.includes("leaked-token-123"), error.message);
      assert(!JSON.stringify(error.data ?? null).includes("leaked-token-123"));
      assertEquals(error.cause, undefined, "no cause that could hold the body");
    }
  }
});

test("token: refresh requests carry resource, scope and the client", async () => {
  const sent: Record<string, string>[] = [];
  await refreshRequest(
    {
      ...ctx(),
      fetch: (_input, init) => {
        sent.push(Object.fromEntries(new URLSearchParams(String(init?.body))));
        return Promise.resolve(Response.json({}));
      },
    },
    "rt-9",
    "a b",
  );
  assertEquals(sent, [{
    client_id: "c",
    grant_type: "refresh_token",
    refresh_token: "rt-9",
    resource: "https://mcp.ex.com/mcp",
    scope: "a b",
  }]);
});

test("token: isFresh", () => {
  const t = { accessToken: "a", tokenType: "Bearer" as const, issuer: "i", resource: "r" };
  assertEquals(isFresh(undefined, 0), false);
  assertEquals(isFresh(t, 0), true, "no expiry known");
  assertEquals(isFresh({ ...t, expiresAt: 100_000 }, 69_999), true);
  assertEquals(isFresh({ ...t, expiresAt: 100_000 }, 70_000), false, "30 s early");
  assertEquals(isFresh({ ...t, expiresAt: 100_000 }, 99_000, 0), true);
  assertEquals(isFresh({ ...t, accessToken: "" }, 0), false);
});

test("token: withNonceRetry retries once on use_dpop_nonce", async () => {
  let sends = 0;
  const nonce = () =>
    Response.json({ error: "use_dpop_nonce" }, { status: 400, headers: { "dpop-nonce": "n1" } });
  const result = await withNonceRetry(
    () => Promise.resolve(++sends === 1 ? nonce() : Response.json({ ok: true })),
    async (response) => {
      if (response.status !== 200) throw new Error("refused");
      return await response.json();
    },
  );
  assertEquals([result.ok, sends], [true, 2]);
  sends = 0;
  let failed = false;
  try {
    await withNonceRetry(
      () => Promise.resolve((++sends, nonce())),
      () => Promise.reject(new Error("refused")),
    );
  } catch {
    failed = true;
  }
  assertEquals([failed, sends], [true, 2], "only one retry");
});

// DPoP proofs (RFC 9449 §4.2) and server nonces; then the middleware against a resource
// that requires DPoP-bound tokens and nonces from both servers.

import {
  calculateJwkThumbprint,
  decodeJwt,
  decodeProtectedHeader,
  importJWK,
  type JWK,
  jwtVerify,
} from "jose";
import { Hono } from "hono";
import { assert, assertEquals, test } from "../_harness.ts";
import { createDpopSigner, dpopAlgorithm } from "../../oauth/dpop.ts";
import { withOAuth } from "../../oauth/middleware.ts";
import { serve } from "../../runtime/serve.ts";

test("dpop: proofs are fresh, well-formed and bound to the token", async () => {
  const signer = await createDpopSigner({ now: () => 1_700_000_000_000 });
  const url = new URL("https://mcp.ex.com/mcp?query=1#frag");
  const a = await signer.proof("post", url, "token-1");
  const b = await signer.proof("POST", url, "token-1");
  const header = decodeProtectedHeader(a);
  assertEquals([header.typ, header.alg], ["dpop+jwt", "ES256"]);
  const jwk = header.jwk as JWK;
  assertEquals(jwk.d, undefined, "no private key in the header");
  const { payload } = await jwtVerify(a, await importJWK(jwk, "ES256"), {
    currentDate: new Date(1_700_000_000_000),
  });
  assertEquals(payload.htm, "POST");
  assertEquals(payload.htu, "https://mcp.ex.com/mcp");
  assertEquals(payload.iat, 1_700_000_000);
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode("token-1"));
  const ath = btoa(String.fromCharCode(...new Uint8Array(digest))).replace(/\+/g, "-").replace(
    /\//g,
    "_",
  ).replace(/=+$/, "");
  assertEquals(payload.ath, ath);
  assert(payload.jti !== decodeJwt(b).jti, "a new jti each time");
  assertEquals(await signer.thumbprint(), await calculateJwkThumbprint(jwk, "sha256"));
  assertEquals(decodeJwt(await signer.proof("GET", url)).ath, undefined);
});

test("dpop: nonces are remembered per origin", async () => {
  const signer = await createDpopSigner();
  const url = new URL("https://mcp.ex.com/mcp");
  assertEquals(signer.rememberNonce(url, new Response(null)), false);
  assertEquals(
    signer.rememberNonce(url, new Response(null, { headers: { "dpop-nonce": "n1" } })),
    true,
  );
  assertEquals(
    signer.rememberNonce(url, new Response(null, { headers: { "dpop-nonce": "n1" } })),
    false,
    "not new",
  );
  assertEquals(decodeJwt(await signer.proof("POST", url)).nonce, "n1");
  assertEquals(
    decodeJwt(await signer.proof("POST", new URL("https://as.ex.com/token"))).nonce,
    undefined,
  );
});

test("dpop: algorithm choice", () => {
  assertEquals(dpopAlgorithm(undefined), "ES256");
  assertEquals(dpopAlgorithm(["ES256"]), "ES256");
  assertEquals(dpopAlgorithm(["RS256", "ES256"]), "ES256");
  assertEquals(dpopAlgorithm(["RS256"]), undefined);
});

/** An AS + resource that insist on DPoP, each with its own nonce. */
async function dpopServer() {
  let origin = "";
  const seen = {
    tokenNonceChallenges: 0,
    resourceNonceChallenges: 0,
    schemes: [] as string[],
    jtis: new Set<string>(),
  };
  const tokens = new Map<string, string>(); // token → jkt
  const app = new Hono();
  app.get(
    "/.well-known/oauth-protected-resource/mcp",
    (c) => c.json({ resource: `${origin}/mcp`, authorization_servers: [origin] }),
  );
  app.get("/.well-known/oauth-authorization-server", (c) =>
    c.json({
      issuer: origin,
      authorization_endpoint: `${origin}/authorize`,
      token_endpoint: `${origin}/token`,
      registration_endpoint: `${origin}/register`,
      code_challenge_methods_supported: ["S256"],
      token_endpoint_auth_methods_supported: ["none"],
      dpop_signing_alg_values_supported: ["ES256"],
    }));
  app.post(
    "/register",
    (c) => c.json({ client_id: "c1", token_endpoint_auth_method: "none" }, 201),
  );
  app.get("/authorize", (c) => {
    const q = new URL(c.req.url).searchParams;
    const to = new URL(q.get("redirect_uri")!);
    to.searchParams.set("code", "code-1");
    to.searchParams.set("state", q.get("state")!);
    to.searchParams.set("iss", origin);
    return c.redirect(to.href);
  });
  const check = async (proof: string | undefined, htm: string, htu: string) => {
    assert(proof, "a DPoP proof");
    const header = decodeProtectedHeader(proof);
    const { payload } = await jwtVerify(proof, await importJWK(header.jwk as JWK, "ES256"));
    assertEquals([payload.htm, payload.htu], [htm, htu]);
    assert(!seen.jtis.has(payload.jti as string), "no replayed proof");
    seen.jtis.add(payload.jti as string);
    return { payload, jkt: await calculateJwkThumbprint(header.jwk as JWK, "sha256") };
  };
  app.post("/token", async (c) => {
    const { payload, jkt } = await check(c.req.header("dpop"), "POST", `${origin}/token`);
    if (payload.nonce !== "as-nonce") {
      seen.tokenNonceChallenges++;
      return c.json({ error: "use_dpop_nonce" }, 400, { "dpop-nonce": "as-nonce" });
    }
    const token = `dpop-at-${tokens.size + 1}`;
    tokens.set(token, jkt);
    return c.json({ access_token: token, token_type: "DPoP", expires_in: 3600 });
  });
  app.post("/mcp", async (c) => {
    const authorization = c.req.header("authorization");
    if (!authorization) {
      return c.json({}, 401, {
        "www-authenticate":
          `DPoP resource_metadata="${origin}/.well-known/oauth-protected-resource/mcp"`,
      });
    }
    const [scheme, token] = authorization.split(" ");
    seen.schemes.push(scheme);
    const { payload, jkt } = await check(c.req.header("dpop"), "POST", `${origin}/mcp`);
    assertEquals(tokens.get(token), jkt, "the proof key is the token's key");
    if (payload.nonce !== "rs-nonce") {
      seen.resourceNonceChallenges++;
      return c.json({}, 401, {
        "www-authenticate": 'DPoP error="use_dpop_nonce"',
        "dpop-nonce": "rs-nonce",
      });
    }
    return c.json({ jsonrpc: "2.0", id: 1, result: {} });
  });
  const server = await serve(app.fetch);
  origin = server.url.origin;
  return { url: new URL("/mcp", origin), seen, server };
}

test("dpop: the middleware binds tokens and honours both servers' nonces", async () => {
  const { url, seen, server } = await dpopServer();
  await using _ = server;
  const f = withOAuth({
    redirectUri: "http://127.0.0.1:9/cb",
    onAuthorizationUrl: async (u) => {
      const r = await fetch(u, { redirect: "manual" });
      await r.body?.cancel();
      return r.headers.get("location")!;
    },
  })((input, init) => fetch(input, init));
  for (let i = 0; i < 3; i++) {
    assertEquals((await f(url, { method: "POST", body: "{}" })).status, 200);
  }
  assertEquals(seen.tokenNonceChallenges, 1);
  assertEquals(seen.resourceNonceChallenges, 1);
  assert(seen.schemes.every((s) => s === "DPoP"), seen.schemes.join());
});

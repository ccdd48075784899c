// End to end, as a person would use it: a real authorization server (oidc-provider on
// 127.0.0.1) in front of an MCP server, headless Debian Chromium doing the login and the
// consent, the client getting a tool result; the access token then expires and is
// refreshed once under 10 concurrent calls; a new client on the same Kv store reuses the
// tokens without a login.
//
// Needs Node (the authorization server and playwright-core run there) and Chromium at
// CHROMIUM_PATH or /usr/bin/chromium (Debian's `chromium` package). Without Chromium the
// test is skipped, except under CI=true, where it fails.

import { createRemoteJWKSet, jwtVerify } from "jose";
import { Hono } from "hono";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { connectClient } from "../../client/client.ts";
import { loopbackCallback } from "../../oauth/callback.ts";
import { type KvLike, kvTokenStore } from "../../oauth/kv_store.ts";
import { spawnProcess } from "../../runtime/spawn.ts";
import { serve } from "../../runtime/serve.ts";
import { streamableHttp } from "../../transports/streamable_http.ts";
import { assert, assertEquals, test } from "../_harness.ts";
import { startHttpFixture } from "../fixtures/http_server.ts";
import { jsonLines } from "./_oidc.ts";

const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const HAVE_BROWSER = existsSync(CHROMIUM);
const ROOT = new URL("../../", import.meta.url).pathname;
const TTL = 4; // seconds: short, so the test sees it expire
const reconnect = { attempts: 2, initialDelay: 10, maxDelay: 50, jitter: 0 };

async function text(stream: ReadableStream<Uint8Array>): Promise<string> {
  return await new Response(stream).text();
}

/** A Kv: Deno.Kv in a temporary directory when this Deno offers it, else one in memory. */
async function openKv(path: string): Promise<KvLike & { close(): void; kind: string }> {
  const deno =
    (globalThis as { Deno?: { openKv?: (path: string) => Promise<KvLike & { close(): void }> } })
      .Deno;
  if (typeof deno?.openKv === "function") {
    const kv = await deno.openKv(path);
    return Object.assign(kv, { kind: "Deno.Kv" });
  }
  const shared = ((globalThis as { __e2eKv?: Map<string, unknown> }).__e2eKv ??= new Map());
  const id = (key: unknown[]) => JSON.stringify([path, ...key.map(String)]);
  return {
    kind: "in-memory KvLike",
    get: (key) => Promise.resolve({ value: structuredClone(shared.get(id(key)) ?? null) }),
    set: (key, value) => Promise.resolve(shared.set(id(key), structuredClone(value))),
    delete: (key) => Promise.resolve(void shared.delete(id(key))),
    close() {},
  };
}

test(
  "e2e: oidc-provider + Chromium login, refresh once under 10 calls, tokens reused from Kv",
  async () => {
    assert(HAVE_BROWSER, `Chromium is not at ${CHROMIUM} (apt-get install -y chromium)`);
    await using upstream = await startHttpFixture();

    // The protected MCP resource: verifies the JWT access tokens, forwards to the fixture.
    let issuer = "";
    let resource = "";
    const keys: { jwks?: ReturnType<typeof createRemoteJWKSet> } = {};
    const tokensSeen = new Set<string>();
    const app = new Hono();
    app.get(
      "/.well-known/oauth-protected-resource/mcp",
      (c) => c.json({ resource, authorization_servers: [issuer], scopes_supported: ["mcp:tools"] }),
    );
    app.all("/mcp", async (c) => {
      const header = c.req.header("authorization") ?? "";
      const challenge = {
        "www-authenticate": `Bearer resource_metadata="${
          new URL(c.req.url).origin
        }/.well-known/oauth-protected-resource/mcp"`,
      };
      if (!header.startsWith("Bearer ")) {
        return c.json({ error: "invalid_token" }, 401, challenge);
      }
      const token = header.slice(7);
      try {
        const { payload } = await jwtVerify(token, keys.jwks!, { issuer, audience: resource });
        if (!String(payload.scope ?? "").split(" ").includes("mcp:tools")) throw new Error("scope");
      } catch {
        return c.json({ error: "invalid_token" }, 401, challenge);
      }
      tokensSeen.add(token);
      const headers = new Headers(c.req.raw.headers);
      headers.delete("authorization");
      headers.delete("host");
      return await fetch(upstream.url, {
        method: c.req.method,
        headers,
        body: c.req.method === "POST" ? await c.req.text() : undefined,
      });
    });
    await using rs = await serve(app.fetch);
    resource = `${rs.url.origin}/mcp`;

    // The authorization server, in Node.
    const as = spawnProcess({
      command: "node",
      args: [join(ROOT, "tests/fixtures/oidc_server.mjs"), resource, String(TTL)],
      cwd: ROOT,
    });
    const asErrors = text(as.stderr);
    const events: Record<string, unknown>[] = [];
    const started = await Promise.race([
      jsonLines(as, events),
      as.exited.then(async (status) => {
        throw new Error(`oidc-provider exited (${JSON.stringify(status)}): ${await asErrors}`);
      }),
    ]);
    issuer = String(started.issuer);
    keys.jwks = createRemoteJWKSet(new URL(`${issuer}/jwks`));
    const count = (event: string, grant?: string) =>
      events.filter((e) => e.event === event && (grant === undefined || e.grant_type === grant))
        .length;

    const dir = mkdtempSync(join(tmpdir(), "conduit-oauth-e2e-"));
    try {
      // 1. First client: the login happens in Chromium, the redirect comes back to 127.0.0.1.
      let kv = await openKv(join(dir, "tokens.db"));
      let logins = 0;
      const transport = streamableHttp(resource, {
        auth: {
          oauth: {
            store: kvTokenStore(kv),
            callback: loopbackCallback(),
            expirySkew: 1_000,
            clientMetadata: { clientName: "conduit e2e" },
            onAuthorizationUrl: async (url) => {
              logins++;
              const browser = spawnProcess({
                command: "node",
                args: [join(ROOT, "tests/fixtures/oauth_browser.mjs"), url.href, CHROMIUM],
                cwd: ROOT,
              });
              const [out, err, status] = await Promise.all([
                text(browser.stdout),
                text(browser.stderr),
                browser.exited,
              ]);
              if (status.code !== 0) throw new Error(`the browser failed: ${err.slice(-2000)}`);
              const landed = JSON.parse(out.trim().split("\n").at(-1)!);
              assert(String(landed.landed).endsWith("/callback"), out);
            },
          },
        },
      });
      const client = await connectClient({
        transport,
        reconnect,
        probeTimeout: 60_000,
        requestTimeout: 60_000,
      });
      const first = await client.callTool("echo", { message: "after a real login" });
      assertEquals(first.content[0].text, "after a real login");
      assertEquals(logins, 1);
      assertEquals([count("registration"), count("grant", "authorization_code")], [1, 1]);

      // 2. The access token expires: 10 concurrent calls cause one refresh.
      await new Promise((resolve) => setTimeout(resolve, (TTL - 1) * 1000 + 300));
      const results = await Promise.all(
        Array.from({ length: 10 }, (_, i) => client.callTool("echo", { message: `call ${i}` })),
      );
      assertEquals(
        results.map((r) => r.content[0].text),
        Array.from({ length: 10 }, (_, i) => `call ${i}`),
      );
      assertEquals(count("grant", "refresh_token"), 1, JSON.stringify(events));
      assertEquals(tokensSeen.size, 2, "the first token, then the refreshed one");
      await client.close();
      kv.close();

      // 3. A new client (a restart) on the same store: no login.
      kv = await openKv(join(dir, "tokens.db"));
      const again = await connectClient({
        transport: streamableHttp(resource, {
          auth: {
            oauth: {
              store: kvTokenStore(kv),
              callback: loopbackCallback(),
              expirySkew: 1_000,
              onAuthorizationUrl: () => {
                throw new Error("a login was asked for although tokens were stored");
              },
            },
          },
        }),
        reconnect,
        probeTimeout: 60_000,
      });
      assertEquals(
        (await again.callTool("echo", { message: "restarted" })).content[0].text,
        "restarted",
      );
      await again.close();
      kv.close();
      assertEquals([count("registration"), count("grant", "authorization_code")], [1, 1]);
      assertEquals(count("server_error"), 0, JSON.stringify(events));
      console.log(
        `e2e: store was ${kv.kind}; events ${
          JSON.stringify(events.map((e) => e.grant_type ?? e.event))
        }`,
      );
    } finally {
      await as.stdin.close().catch(() => {});
      as.kill();
      await as.exited;
      await asErrors.catch(() => "");
      rmSync(dir, { recursive: true, force: true });
    }
  },
  { ignore: !HAVE_BROWSER && process.env.CI !== "true", timeout: 90_000 },
);

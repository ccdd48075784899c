// End to end, as a person would use it: a real authorization server (oidc-provider on
// 127.0.0.1) in front of an MCP server, headless Debian Chromium doing the login and the
// consent, the client getting a tool result; the access token then expires and is
// refreshed once under 10 concurrent calls; a new client on the same Kv store reuses the
// tokens without a login.
//
// Needs Node (the authorization server and playwright-core run there) and Chromium at
// CHROMIUM_PATH or /usr/bin/chromium (Debian's `chromium` package). Without Chromium the
// test is skipped, except under CI=true, where it fails.

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connectClient } from "../../client/client.ts";
import { loopbackCallback } from "../../oauth/callback.ts";
import { type KvLike, kvTokenStore } from "../../oauth/kv_store.ts";
import { streamableHttp } from "../../transports/streamable_http.ts";
import { assert, assertEquals, test, within } from "../_harness.ts";
import {
  type BrowserRun,
  CHROMIUM,
  HAVE_BROWSER,
  NO_BROWSER,
  runBrowser,
  startOidc,
} from "./_oidc.ts";

const TTL = 4; // seconds: short, so the test sees it expire
const reconnect = { attempts: 2, initialDelay: 10, maxDelay: 50, jitter: 0 };

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
    await using oidc = await within(30_000, "the authorization server starts", startOidc(TTL));
    const { resource, events } = oidc;
    const count = (event: string, grant?: string) =>
      grant === undefined ? oidc.count(event) : oidc.count(event, "grant_type", grant);

    const dir = mkdtempSync(join(tmpdir(), "conduit-oauth-e2e-"));
    try {
      // 1. First client: the login happens in Chromium, the redirect comes back to 127.0.0.1.
      let kv = await openKv(join(dir, "tokens.db"));
      let logins = 0;
      let browser: BrowserRun | undefined;
      // Each step has its own time, and says how far the browser and the server got.
      const seen = () =>
        `${browser?.log() ?? "browser: not started\n"}authorization server: ${
          JSON.stringify(events)
        }`;
      const transport = streamableHttp(resource, {
        auth: {
          oauth: {
            store: kvTokenStore(kv),
            callback: loopbackCallback(),
            expirySkew: 1_000,
            clientMetadata: { clientName: "conduit e2e" },
            onAuthorizationUrl: async (url) => {
              logins++;
              browser = runBrowser("oauth_browser.mjs", [url.href]);
              const landed = await browser.result;
              assert(String(landed.landed).endsWith("/callback"), JSON.stringify(landed));
            },
          },
        },
      });
      const client = await within(
        90_000,
        "connect, with the login in Chromium",
        connectClient({ transport, reconnect, probeTimeout: 90_000, requestTimeout: 60_000 }),
        seen,
      );
      const first = await within(
        20_000,
        "the first call",
        client.callTool("echo", { message: "after a real login" }),
        seen,
      );
      assertEquals(first.content[0].text, "after a real login");
      assertEquals(logins, 1);
      assertEquals([count("registration"), count("grant", "authorization_code")], [1, 1]);

      // 2. The access token expires: 10 concurrent calls cause one refresh.
      await new Promise((resolve) => setTimeout(resolve, (TTL - 1) * 1000 + 300));
      const results = await within(
        20_000,
        "10 calls on an expired token",
        Promise.all(
          Array.from({ length: 10 }, (_, i) => client.callTool("echo", { message: `call ${i}` })),
        ),
        seen,
      );
      assertEquals(
        results.map((r) => r.content[0].text),
        Array.from({ length: 10 }, (_, i) => `call ${i}`),
      );
      assertEquals(count("grant", "refresh_token"), 1, JSON.stringify(events));
      assertEquals(oidc.tokens.size, 2, "the first token, then the refreshed one");
      await within(15_000, "the first client closing", () => client.close());
      kv.close();

      // 3. A new client (a restart) on the same store: no login.
      kv = await openKv(join(dir, "tokens.db"));
      const again = await within(
        20_000,
        "a new client on the stored tokens",
        connectClient({
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
          probeTimeout: 20_000,
        }),
        seen,
      );
      assertEquals(
        (await within(20_000, "its call", again.callTool("echo", { message: "restarted" }), seen))
          .content[0].text,
        "restarted",
      );
      await within(15_000, "the second client closing", () => again.close());
      kv.close();
      assertEquals([count("registration"), count("grant", "authorization_code")], [1, 1]);
      assertEquals(count("server_error"), 0, JSON.stringify(events));
      console.log(
        `e2e: store was ${kv.kind}; events ${
          JSON.stringify(events.map((e) => e.grant_type ?? e.event))
        }`,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
  { ignore: NO_BROWSER, timeout: 180_000 },
);

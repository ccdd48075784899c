// The device flow end to end, as a person at another device would use it: the real
// authorization server (oidc-provider, its device flow enabled) in front of an MCP server;
// the client gets a code, and the test plays the user by confirming it on the provider's
// own verification page in headless Chromium and signing in there. Then: the code expires
// when nobody approves it, a user who aborts gets `authorization_denied`, and a revoked
// refresh token moves the client to `needs_reauth` at once, with one token request and
// no login started, until `login()` runs a new device login.
//
// Needs Node (the authorization server and playwright-core run there) and Chromium at
// CHROMIUM_PATH or /usr/bin/chromium. Without Chromium the tests are skipped, except under
// CI=true, where they fail.

import { createClient } from "../../client/client.ts";
import type { McpClient } from "../../client/types.ts";
import type { DeviceCode } from "../../oauth/options.ts";
import { memoryTokenStore, type TokenStore } from "../../oauth/store.ts";
import { McpError } from "../../protocol/errors.ts";
import { streamableHttp } from "../../transports/streamable_http.ts";
import { assert, assertEquals, bounded, test } from "../_harness.ts";
import { deviceUser, HAVE_BROWSER, NO_BROWSER, type OidcSetup, startOidc, step } from "./_oidc.ts";

const DEVICE_GRANT = "urn:ietf:params:oauth:grant-type:device_code";
const reconnect = { attempts: 2, initialDelay: 10, maxDelay: 50, jitter: 0 };

async function reasonOf(promise: Promise<unknown>): Promise<string | undefined> {
  try {
    await promise;
  } catch (error) {
    assert(error instanceof McpError, `expected an McpError, got ${error}`);
    return error.reason;
  }
  throw new Error("expected a rejection");
}

/**
 * A client whose device logins are approved in Chromium as `login` (when `approve`); the
 * tests wait on it in steps (`step`) that fail as soon as a browser fails.
 */
function deviceClient(
  resource: string,
  store: TokenStore,
  login: string,
  approve: "yes" | "abort" | "nobody" = "yes",
) {
  const codes: DeviceCode[] = [];
  const user = deviceUser();
  const client: McpClient = createClient({
    transport: streamableHttp(resource, {
      auth: {
        oauth: {
          flow: "device",
          store,
          expirySkew: 500,
          clientMetadata: { clientName: "conduit device e2e" },
          onDeviceCode: (code) => {
            codes.push(code);
            // The pending status names the same code and page, for a host to show.
            const status = client.status();
            assertEquals(status.auth, "pending");
            assertEquals(status.login?.userCode, code.userCode);
            if (approve !== "nobody") {
              user.approve(code.verificationUriComplete!, login, { abort: approve === "abort" });
            }
          },
        },
      },
    }),
    reconnect,
    probeTimeout: 60_000,
    requestTimeout: 60_000,
  });
  return { client, codes, user };
}

/** The first call, which makes the device login (approved in Chromium): its text and the page. */
async function firstCall(
  { client, user }: ReturnType<typeof deviceClient>,
  setup: OidcSetup,
  message: string,
) {
  const result = await step(
    90_000,
    "the device login (approved in Chromium) and the first call",
    client.callTool("echo", { message }),
    user,
    setup,
    client,
  );
  const [browser] = await step(20_000, "the browser closing", user.all(), user, setup);
  return { text: result.content[0].text, browser };
}

test(
  "device e2e: oidc-provider + Chromium approve the code; a tool result; the grant is registered",
  async () => {
    assert(HAVE_BROWSER, "Chromium is needed");
    await using setup = await startOidc();
    const store = memoryTokenStore();
    const device = deviceClient(setup.resource, store, "alice");
    const { client, codes } = device;
    await using _ = bounded(15_000, "the client closing", client);
    assertEquals(client.status().auth, "none");
    const { text, browser } = await firstCall(device, setup, "after a device login");
    assertEquals(text, "after a device login");
    assertEquals(browser.title, "Device signed in", JSON.stringify(browser.pages));
    assertEquals(codes.length, 1);
    assert(/^[A-Z]{4}-[A-Z]{4}$/.test(codes[0].userCode), codes[0].userCode);
    assertEquals(codes[0].verificationUri, `${setup.issuer}/device`);
    assert(codes[0].expiresIn > 0 && codes[0].expiresIn <= 120);
    assertEquals(client.status().auth, "ok");
    assertEquals(client.status().login, undefined);
    assertEquals(setup.count("registration"), 1);
    assertEquals(setup.count("device_authorization"), 1);
    assertEquals(setup.count("grant", "grant_type", DEVICE_GRANT), 1);
    assertEquals(setup.count("grant", "grant_type", "authorization_code"), 0, "no code flow");
    assertEquals([...new Set(setup.subjects)], ["alice"]);
    const stored = await store.getTokens({
      principal: "default",
      issuer: setup.issuer,
      resource: setup.resource,
    });
    assertEquals(stored?.subject, "alice");
  },
  { ignore: NO_BROWSER, timeout: 180_000 },
);

test(
  "device e2e: nobody approves, the code expires; the user aborts, the login is denied",
  async () => {
    assert(HAVE_BROWSER, "Chromium is needed");
    {
      await using setup = await startOidc(60, 2); // device codes live 2 s, the poll is at 5 s
      const { client, codes, user } = deviceClient(
        setup.resource,
        memoryTokenStore(),
        "alice",
        "nobody",
      );
      await using _ = bounded(15_000, "the client closing", client);
      assertEquals(
        await step(60_000, "the code expiring", reasonOf(client.ready()), user, setup, client),
        "device_code_expired",
      );
      assertEquals(codes.length, 1);
      assertEquals(setup.count("grant_error", "error", "expired_token"), 1);
      assert(client.status().auth !== "pending", "no longer pending");
    }
    {
      await using setup = await startOidc();
      const { client, codes, user } = deviceClient(
        setup.resource,
        memoryTokenStore(),
        "alice",
        "abort",
      );
      await using _ = bounded(15_000, "the client closing", client);
      assertEquals(
        await step(
          90_000,
          "the user aborting in Chromium",
          reasonOf(client.ready()),
          user,
          setup,
          client,
        ),
        "authorization_denied",
      );
      await step(20_000, "the browser closing", user.all(), user, setup);
      assertEquals(codes.length, 1);
      assertEquals(setup.count("grant", "grant_type", DEVICE_GRANT), 0);
    }
  },
  { ignore: NO_BROWSER, timeout: 240_000 },
);

test(
  "device e2e: a revoked refresh token is needs_reauth at once, no retry storm; login() logs in again",
  async () => {
    assert(HAVE_BROWSER, "Chromium is needed");
    await using setup = await startOidc(3); // access tokens live 3 s
    const store = memoryTokenStore();
    const device = deviceClient(setup.resource, store, "alice");
    const { client, codes, user } = device;
    await using _ = bounded(15_000, "the client closing", client);
    assertEquals((await firstCall(device, setup, "one")).text, "one");
    const key = { principal: "default", issuer: setup.issuer, resource: setup.resource };
    const tokens = (await store.getTokens(key))!;
    await setup.revoke(tokens.refreshToken!, tokens.clientId!);
    await new Promise((resolve) => setTimeout(resolve, 3_500)); // the access token expires
    const tokenRequests = () =>
      setup.events.filter((e) => e.event === "grant" || e.event === "grant_error").length;
    const before = tokenRequests();
    assertEquals(await reasonOf(client.callTool("echo", { message: "two" })), "needs_reauth");
    assertEquals(client.status().auth, "needs_reauth");
    // Requests fail at once; the connection does not spin; no login starts by itself.
    for (let i = 0; i < 10; i++) {
      assertEquals(await reasonOf(client.callTool("echo", { message: `x${i}` })), "needs_reauth");
    }
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    assertEquals(tokenRequests() - before, 1, "one refresh, refused; nothing after it");
    assertEquals(setup.count("grant_error", "error", "invalid_grant"), 1);
    assertEquals(codes.length, 1, "no device login started by the refusal");
    assertEquals(client.status().auth, "needs_reauth");
    // login() starts a new device login; the user approves it again.
    await step(90_000, "login(), approved in Chromium again", client.login(), user, setup, client);
    await step(20_000, "the browser closing", user.all(), user, setup);
    assertEquals(codes.length, 2);
    assertEquals(client.status().auth, "ok");
    assertEquals((await client.callTool("echo", { message: "three" })).content[0].text, "three");
    assertEquals(setup.count("grant", "grant_type", DEVICE_GRANT), 2);
  },
  { ignore: NO_BROWSER, timeout: 300_000 },
);

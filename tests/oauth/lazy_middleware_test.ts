// The OAuth middleware's shell that the HTTP transport builds at once (`oauth/lazy_middleware.ts`):
// the configured secrets are known before the middleware loads, nothing is reported before it
// did, and the first request loads it and goes through it.
import { assert, assertEquals, test } from "../_harness.ts";
import { lazyMiddleware } from "../../oauth/lazy_middleware.ts";
import { identityOf } from "../../oauth/identity.ts";
import { memoryTokenStore } from "../../oauth/store.ts";
import { secretsOf } from "../../protocol/secrets.ts";
import { tokenObserversOf } from "../../protocol/token_events.ts";

const SECRET = "s3cret-value-for-the-shell";

test("oauth shell: the configured secrets and observers are there before the middleware loads", async () => {
  const shell = lazyMiddleware({
    kind: "client_credentials",
    options: { clientId: "svc", clientSecret: SECRET, principal: "svc-bot", profile: "work" },
  });
  const seen: string[] = [];
  const authorizing = shell((input) => {
    seen.push(String(input));
    return Promise.resolve(new Response("{}", { status: 200 }));
  });
  assertEquals(secretsOf(authorizing)?.text(`echo ${SECRET}`), "echo [redacted]");
  assert(tokenObserversOf(authorizing) !== undefined, "the token observers are held");
  assertEquals([shell.principal, shell.profile], ["svc-bot", "work"]);
  assertEquals(shell.authStatus(), { state: "none" });
  assertEquals(shell.store, undefined); // the middleware's own store comes with it
  assertEquals(identityOf(authorizing)?.(new URL("http://127.0.0.1:1/mcp")), undefined);
  await shell.signOut(); // nothing to sign out of yet
  shell.authorized();
  shell.abort();
  assertEquals(seen, []);
  // The first request loads the middleware and goes through it to `next`.
  const response = await authorizing("http://127.0.0.1:1/mcp", { method: "POST", body: "{}" });
  assertEquals(response.status, 200);
  assertEquals(seen, ["http://127.0.0.1:1/mcp"]);
  assert(shell.store !== undefined, "the middleware's store once it loaded");
  assertEquals(shell.authStatus().state, "none");
});

test("oauth shell: a configured store is the shell's from the start", () => {
  const store = memoryTokenStore();
  const shell = lazyMiddleware({
    kind: "authorization_code",
    options: { redirectUri: "http://127.0.0.1:9/callback", onAuthorizationUrl: () => {}, store },
  });
  assertEquals(shell.store, store);
  assertEquals(shell.principal, "default");
});

test("oauth shell: login() of client credentials fails as the middleware's does, redacted", async () => {
  const shell = lazyMiddleware({
    kind: "client_credentials",
    options: { clientId: "svc", clientSecret: SECRET },
  });
  let failure: unknown;
  try {
    await shell.login();
  } catch (error) {
    failure = error;
  }
  assert(failure instanceof TypeError, `a TypeError: ${failure}`);
  assert(!String(failure).includes(SECRET));
});

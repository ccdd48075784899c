// A server that reflects the client's credentials in every error it can produce, in both
// eras, over real HTTP (and stdio): the credentials appear in no error (message, stack,
// data, the whole cause chain), no warning and no status().

import { assert, assertEquals, test } from "../_harness.ts";
import { createClient } from "../../client/client.ts";
import type { McpClient } from "../../client/types.ts";
import { isMcpError } from "../../protocol/errors.ts";
import { stdio } from "../../transports/stdio.ts";
import { type HttpAuth, streamableHttp } from "../../transports/streamable_http.ts";
import { withClientCredentials } from "../../oauth/middleware.ts";
import { startOAuthFixture } from "../fixtures/oauth_server.ts";
import {
  type ReflectingServer,
  type Reflection,
  REFLECTIONS,
  startReflectingServer,
} from "../fixtures/reflecting_server.ts";

const TOKEN = `tok_REFLECT_${crypto.randomUUID().replaceAll("-", "")}`;
const ERAS = [["legacy", "legacy-only"], ["modern", "modern-only"]] as const;
const FAST = { attempts: 2, initialDelay: 1, maxDelay: 5, jitter: 0 };

/** Everything an error exposes, as text: message, stack, data, along the whole cause chain. */
function exposed(value: unknown, depth = 0): string {
  if (value === undefined || value === null || depth > 20) return "";
  if (!(value instanceof Error)) {
    try {
      return JSON.stringify(value) ?? String(value);
    } catch {
      return String(value);
    }
  }
  const data = (value as { data?: unknown }).data;
  return [
    String(value),
    value.message,
    value.stack ?? "",
    exposed(data, depth + 1),
    exposed(value.cause, depth + 1),
  ].join("\n");
}

/** Collects every error, warning and status of a client. */
class Sightings {
  readonly texts: string[] = [];
  readonly warnings: string[] = [];
  errors = 0;

  error(error: unknown): void {
    this.errors++;
    this.texts.push(exposed(error));
  }

  status(client: McpClient): void {
    const status = client.status();
    this.texts.push(exposed(status), exposed((status as { error?: unknown }).error));
  }

  async settle(promise: Promise<unknown>): Promise<void> {
    try {
      await promise;
    } catch (error) {
      assert(isMcpError(error), `expected an McpError, got ${error}`);
      this.error(error);
    }
  }

  /** Connects `client`, records how that went and its status, and closes it. */
  async connect(client: McpClient): Promise<void> {
    try {
      await this.settle(client.ready(10_000));
      this.status(client);
    } finally {
      await client.close();
    }
  }

  assertClean(secrets: string[], where: string): void {
    const all = [...this.texts, ...this.warnings].join("\n");
    for (const secret of secrets) {
      assert(secret.length >= 8, `a distinctive secret: ${secret}`);
      assert(!all.includes(secret), `${where}: ${secret} leaked in\n${all}`);
    }
  }
}

function clientFor(server: ReflectingServer, seen: Sightings, auth: HttpAuth = { bearer: TOKEN }) {
  return createClient({
    transport: streamableHttp(server.url, { auth, reconnectDelay: 1, maxReconnects: 2 }),
    reconnect: FAST,
    requestTimeout: 5_000,
    onWarning: (message) => seen.warnings.push(message),
  });
}

for (const [era, mode] of ERAS) {
  test(`token reflection (${era}): no credential in any error a later request gets`, async () => {
    await using server = await startReflectingServer({ mode });
    const seen = new Sightings();
    for (const kind of REFLECTIONS) {
      const client = clientFor(server, seen);
      try {
        await client.ready(10_000);
        server.knobs.methods["tools/call"] = kind;
        await seen.settle(client.callTool("echo", { message: "hi" }));
        seen.status(client);
      } finally {
        delete server.knobs.methods["tools/call"];
        await client.close();
      }
    }
    assertEquals(seen.errors, REFLECTIONS.length, "every reflection failed its call");
    assert(server.reflected() >= REFLECTIONS.length, "the server reflected");
    seen.assertClean([TOKEN], era);
  });

  test(`token reflection (${era}): no credential in a failed connect`, async () => {
    await using server = await startReflectingServer({ mode });
    const seen = new Sightings();
    const first = era === "legacy" ? "initialize" : "server/discover";
    const kinds: Reflection[] = ["challenge_401", "challenge_403", "rpc_error", "rpc_error_400"];
    for (const kind of kinds) {
      server.knobs.methods = { [first]: kind, initialize: kind };
      await seen.connect(clientFor(server, seen));
    }
    assert(seen.errors >= 1, "connects failed");
    assert(server.reflected() >= kinds.length, "the server reflected");
    seen.assertClean([TOKEN], era);
  });
}

test("token reflection (legacy): no credential in the GET stream's warnings", async () => {
  await using server = await startReflectingServer({ mode: "legacy-only" });
  const seen = new Sightings();
  server.knobs.gets = ["sse_garbage", "sse_rpc_error", "challenge_401"];
  const client = clientFor(server, seen);
  try {
    await client.ready(10_000);
    const end = Date.now() + 10_000;
    while (!seen.warnings.some((w) => w.includes("stopped")) && Date.now() < end) {
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    seen.status(client);
  } finally {
    await client.close();
  }
  assert(seen.warnings.some((w) => w.includes("Skipped an event")), seen.warnings.join("\n"));
  assert(seen.warnings.some((w) => w.includes("stopped")), seen.warnings.join("\n"));
  seen.assertClean([TOKEN], "GET stream");
});

test("token reflection: a token function's tokens are kept out as well", async () => {
  await using server = await startReflectingServer({ mode: "modern-only" });
  const seen = new Sightings();
  const client = clientFor(server, seen, () => `${TOKEN}-fn`);
  try {
    await client.ready(10_000);
    server.knobs.methods["tools/call"] = "rpc_error";
    await seen.settle(client.callTool("echo", { message: "hi" }));
    server.knobs.methods["tools/call"] = "challenge_401";
    await seen.settle(client.callTool("echo", { message: "hi" }));
    seen.status(client);
  } finally {
    await client.close();
  }
  assertEquals(seen.errors, 2);
  seen.assertClean([`${TOKEN}-fn`], "token function");
});

const CLIENT_SECRET = `cs_REFLECT_${crypto.randomUUID()}`;

test("token reflection (oauth): no secret, code or token from the authorization server either", async () => {
  await using as = await startOAuthFixture({
    reflect: true,
    dcr: false,
    clients: { app: "other" },
  });
  const seen = new Sightings();
  // The token endpoint refuses the client secret, echoing it and the whole form.
  const refused = createClient({
    transport: streamableHttp(as.url, {
      auth: { clientCredentials: { clientId: "app", clientSecret: CLIENT_SECRET } },
    }),
    reconnect: false,
    onWarning: (message) => seen.warnings.push(message),
  });
  try {
    await seen.settle(refused.ready(10_000));
    seen.status(refused);
  } finally {
    await refused.close();
  }
  // A user's login succeeds; then the server echoes every token, code and secret it
  // handed out in its JSON-RPC errors, 401 challenges and token endpoint descriptions.
  as.knobs.clients = { app: CLIENT_SECRET };
  const follow = async (url: URL) => {
    const response = await fetch(url, { redirect: "manual" });
    await response.body?.cancel();
    return new URL(response.headers.get("location")!, url).href;
  };
  const user = createClient({
    transport: streamableHttp(as.url, {
      auth: {
        oauth: {
          redirectUri: "http://127.0.0.1:9/callback",
          client: { clientId: "app", clientSecret: CLIENT_SECRET },
          onAuthorizationUrl: follow,
        },
      },
    }),
    reconnect: FAST,
    onWarning: (message) => seen.warnings.push(message),
  });
  try {
    await seen.settle(user.ready(10_000));
    await seen.settle(user.callTool("echo", {}));
    as.revokeAccessTokens();
    as.revokeRefreshTokens();
    await seen.settle(user.callTool("echo", {}));
    seen.status(user);
  } finally {
    await user.close();
  }
  assert(seen.errors >= 2, `errors: ${seen.errors}`);
  assert(as.secrets().some((s) => s.startsWith("rt-")), "refresh tokens were handed out");
  seen.assertClean([CLIENT_SECRET, ...as.secrets()], "oauth");
});

test("token reflection (oauth): a middleware handed in as fetch brings its secrets along", async () => {
  await using as = await startOAuthFixture({
    reflect: true,
    dcr: false,
    clients: { app: CLIENT_SECRET },
  });
  const seen = new Sightings();
  const oauth = withClientCredentials({ clientId: "app", clientSecret: CLIENT_SECRET });
  const client = createClient({
    transport: streamableHttp(as.url, { fetch: oauth((input, init) => fetch(input, init)) }),
    reconnect: false,
    onWarning: (message) => seen.warnings.push(message),
  });
  await seen.connect(client);
  // Used on its own, the middleware's errors hold none either.
  as.knobs.clients = { app: "another" };
  as.revokeAccessTokens();
  const alone = withClientCredentials({ clientId: "app", clientSecret: CLIENT_SECRET });
  await seen.settle(
    alone((input, init) => fetch(input, init))(as.url, { method: "POST", body: "{}" }),
  );
  assert(seen.errors >= 2, `errors: ${seen.errors}`);
  assert(as.secrets().some((s) => s.startsWith("at-")), "access tokens were handed out");
  seen.assertClean([CLIENT_SECRET, ...as.secrets().filter((s) => s !== "another")], "middleware");
});

test("token reflection (stdio): a credential passed in env stays out of errors and warnings", async () => {
  const secret = `env_REFLECT_${crypto.randomUUID()}`;
  const script = `
    const secret = process.env.SERVICE_TOKEN;
    let buffer = "";
    process.stdin.on("data", (chunk) => {
      buffer += chunk;
      for (let i; (i = buffer.indexOf("\\n")) >= 0;) {
        const message = JSON.parse(buffer.slice(0, i));
        buffer = buffer.slice(i + 1);
        if (message.id === undefined) continue;
        process.stdout.write("not json " + secret + "\\n");
        process.stdout.write(JSON.stringify({ jsonrpc: "2.0", id: message.id,
          error: { code: -32000, message: "bad token " + secret, data: { secret } } }) + "\\n");
        process.stderr.write("fatal: token " + secret + " refused\\n");
        setTimeout(() => process.exit(3), 20);
      }
    });`;
  const seen = new Sightings();
  const client = createClient({
    transport: stdio({
      command: "node",
      args: ["-e", script],
      env: { SERVICE_TOKEN: secret },
    }),
    protocol: "legacy",
    reconnect: false,
    onWarning: (message) => seen.warnings.push(message),
  });
  await seen.connect(client);
  assert(seen.errors >= 1, "the connect failed");
  seen.assertClean([secret], "stdio");
});

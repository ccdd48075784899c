// The real authorization server setup the browser, device flow and profile tests share:
// oidc-provider (Node, 127.0.0.1) with its device flow enabled, in front of a protected MCP
// resource (Hono on 127.0.0.1) that verifies the JWT access tokens and their `mcp:tools`
// scope, records which account (`sub`) each token and each MCP session belongs to, and
// forwards to the HTTP fixture. A
// `resources/read` of `test://resource1` is answered with the caller's account, marked
// private, so a cached result that crossed accounts would show.
//
// `deviceUser` plays the user: headless Chromium on the provider's own verification page.

import { createRemoteJWKSet, jwtVerify } from "jose";
import { Hono } from "hono";
import { existsSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import { type ChildProcess, spawnProcess } from "../../runtime/spawn.ts";
import { serve } from "../../runtime/serve.ts";
import { startHttpFixture } from "../fixtures/http_server.ts";
import { within } from "../_harness.ts";

export const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
export const HAVE_BROWSER = existsSync(CHROMIUM);
/** Without Chromium these tests are skipped, except under CI=true, where they fail. */
export const NO_BROWSER = !HAVE_BROWSER && process.env.CI !== "true";
const ROOT = new URL("../../", import.meta.url).pathname;

/** What the authorization server and the resource saw. */
export interface OidcSetup extends AsyncDisposable {
  issuer: string;
  resource: string;
  /** The authorization server's events (`grant`, `grant_error`, `registration`, …). */
  events: Record<string, unknown>[];
  count(event: string, field?: string, value?: string): number;
  /** Per MCP session id (or modern client name), the accounts that used it. */
  sessions: Map<string, Set<string>>;
  /** The account of every request that reached the MCP resource with a valid token. */
  subjects: string[];
  /** The distinct access tokens the resource accepted. */
  tokens: Set<string>;
  /** `resources/read` requests that reached the upstream server, by account. */
  reads: string[];
  /** Revokes a token at the authorization server (RFC 7009). */
  revoke(token: string, clientId: string): Promise<void>;
}

/** Reads a child's stdout as JSON lines into `events`; resolves the first line. */
export function jsonLines(
  child: ChildProcess,
  events: Record<string, unknown>[],
): Promise<Record<string, unknown>> {
  let first!: (value: Record<string, unknown>) => void;
  const firstLine = new Promise<Record<string, unknown>>((resolve) => first = resolve);
  (async () => {
    let buffer = "";
    let started = false;
    const decoder = new TextDecoder();
    for await (const chunk of child.stdout) {
      buffer += decoder.decode(chunk, { stream: true });
      for (let i = buffer.indexOf("\n"); i >= 0; i = buffer.indexOf("\n")) {
        const line = buffer.slice(0, i).trim();
        buffer = buffer.slice(i + 1);
        if (!line.startsWith("{")) continue;
        const event = JSON.parse(line);
        if (started) events.push(event);
        else {
          started = true;
          first(event);
        }
      }
    }
  })().catch(() => {});
  return firstLine;
}

/** A child's stream read as text as it comes: what it said so far, and its end. */
function liveText(stream: AsyncIterable<Uint8Array>): { text(): string; ended: Promise<void> } {
  let text = "";
  const decoder = new TextDecoder();
  const ended = (async () => {
    for await (const chunk of stream) text += decoder.decode(chunk, { stream: true });
  })().catch(() => {});
  return { text: () => text, ended };
}

/**
 * Starts the resource and the authorization server.
 *
 * @param ttl Access token lifetime (s).
 * @param deviceTtl Device code lifetime (s).
 */
export async function startOidc(ttl = 60, deviceTtl = 120): Promise<OidcSetup> {
  const upstream = await startHttpFixture();
  let issuer = "";
  let resource = "";
  const keys: { jwks?: ReturnType<typeof createRemoteJWKSet> } = {};
  const sessions = new Map<string, Set<string>>();
  const subjects: string[] = [];
  const tokens = new Set<string>();
  const reads: string[] = [];
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
    if (!header.startsWith("Bearer ")) return c.json({ error: "invalid_token" }, 401, challenge);
    let sub: string;
    try {
      const { payload } = await jwtVerify(header.slice(7), keys.jwks!, {
        issuer,
        audience: resource,
      });
      if (!String(payload.scope ?? "").split(" ").includes("mcp:tools")) throw new Error("scope");
      sub = String(payload.sub);
    } catch {
      return c.json({ error: "invalid_token" }, 401, challenge);
    }
    subjects.push(sub);
    tokens.add(header.slice(7));
    const headers = new Headers(c.req.raw.headers);
    headers.delete("authorization");
    headers.delete("host");
    const body = c.req.method === "POST" ? await c.req.text() : undefined;
    let message: { method?: string; params?: { _meta?: Record<string, unknown> } } | undefined;
    try {
      message = body ? JSON.parse(body) : undefined;
    } catch {
      message = undefined;
    }
    // A connection: an MCP session (legacy), else the client's name in the modern `_meta`
    // (the profile test names each process's client uniquely).
    const note = (id: unknown) => {
      if (typeof id === "string" && id !== "") {
        (sessions.get(id) ?? sessions.set(id, new Set()).get(id)!).add(sub);
      }
    };
    note(c.req.header("mcp-session-id"));
    const info = message?.params?._meta?.["io.modelcontextprotocol/clientInfo"];
    note((info as { name?: unknown } | undefined)?.name);
    const response = await fetch(upstream.url, { method: c.req.method, headers, body });
    note(response.headers.get("mcp-session-id"));
    if (
      message?.method !== "resources/read" ||
      !response.headers.get("content-type")?.includes("json")
    ) {
      return response;
    }
    reads.push(sub);
    const answer = await response.json() as {
      result?: { contents?: { text?: string }[]; ttlMs?: number; cacheScope?: string };
    };
    if (answer.result?.contents?.[0]) {
      answer.result.contents[0].text = `the account of ${sub}`;
      answer.result.ttlMs = 600_000;
      answer.result.cacheScope = "private";
    }
    const out = new Headers(response.headers);
    out.delete("content-length");
    return new Response(JSON.stringify(answer), { status: response.status, headers: out });
  });
  const rs = await serve(app.fetch);
  resource = `${rs.url.origin}/mcp`;
  const as = spawnProcess({
    command: "node",
    args: [join(ROOT, "tests/fixtures/oidc_server.mjs"), resource, String(ttl), String(deviceTtl)],
    cwd: ROOT,
  });
  const asErrors = liveText(as.stderr);
  const events: Record<string, unknown>[] = [];
  const started = await within(
    30_000,
    "the authorization server (oidc-provider) starts",
    Promise.race([
      jsonLines(as, events),
      as.exited.then(async (status) => {
        await asErrors.ended;
        throw new Error(`oidc-provider exited (${JSON.stringify(status)}): ${asErrors.text()}`);
      }),
    ]),
    () => asErrors.text().slice(-2000),
  ).catch(async (error) => {
    as.kill();
    await rs.close();
    await upstream[Symbol.asyncDispose]();
    throw error;
  });
  issuer = String(started.issuer);
  keys.jwks = createRemoteJWKSet(new URL(`${issuer}/jwks`));
  return {
    issuer,
    resource,
    events,
    sessions,
    subjects,
    tokens,
    reads,
    count: (event, field, value) =>
      events.filter((e) => e.event === event && (field === undefined || e[field] === value))
        .length,
    async revoke(token, clientId) {
      const response = await fetch(`${issuer}/token/revocation`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ token, client_id: clientId }),
      });
      await response.body?.cancel();
      if (!response.ok) throw new Error(`revocation failed: HTTP ${response.status}`);
    },
    // Each part is given 15 s to stop, so a hang on the way out names the part that hung.
    async [Symbol.asyncDispose]() {
      await as.stdin.close().catch(() => {});
      as.kill();
      await within(15_000, "the authorization server exiting", as.exited);
      await within(15_000, "the authorization server's stderr ending", asErrors.ended);
      await within(15_000, "the resource server closing", rs.close());
      await within(15_000, "the MCP server closing", upstream[Symbol.asyncDispose]());
    },
  };
}

/** A browser fixture at work: how far it got, and what it printed when done. */
export interface BrowserRun {
  /** Its stderr so far: a line per step it started (tests/fixtures/_chromium.mjs). */
  log(): string;
  /** Its JSON line; rejects with its stderr when it fails or outlasts its time. */
  result: Promise<Record<string, unknown>>;
}

/**
 * Runs a browser fixture (`tests/fixtures/<script>`) under Node with Chromium, its stderr
 * read as it comes. It is stopped (SIGTERM, so playwright closes Chromium) after `ms`.
 */
export function runBrowser(script: string, args: string[], ms = 80_000): BrowserRun {
  const child = spawnProcess({
    command: "node",
    args: [join(ROOT, "tests/fixtures", script), ...args, CHROMIUM],
    cwd: ROOT,
  });
  child.stdin.close().catch(() => {});
  const stderr = liveText(child.stderr);
  const log = stderr.text;
  const result = (async () => {
    const done = Promise.all([new Response(child.stdout).text(), child.exited, stderr.ended]);
    const [out, status] = await within(
      ms,
      `the browser (${script})`,
      done,
      () => log().slice(-2000),
    )
      .catch((error) => {
        child.kill("SIGTERM");
        throw error;
      });
    if (status.code !== 0) {
      throw new Error(`the browser (${script}) failed:\n${log().slice(-2000)}`);
    }
    return JSON.parse(out.trim().split("\n").at(-1)!) as Record<string, unknown>;
  })();
  return { log, result };
}

/** What the browser showed at the end of a device approval. */
export interface DeviceApproval {
  pages: string[];
  title: string;
}

/**
 * The person at another device: each `approve` runs Chromium on a verification page. A
 * browser that fails fails the step waiting on it at once (`failed`, raced by {@linkcode step}),
 * not after the device code's lifetime, and a step that hangs says how far each browser and
 * the authorization server got.
 */
export interface DeviceUser {
  /** Approves (or aborts) the login on `url` (`verificationUriComplete`, or `<uri>#<code>`). */
  approve(url: string, login: string, options?: { abort?: boolean }): Promise<DeviceApproval>;
  /** Rejects as soon as one approval fails; never resolves. */
  readonly failed: Promise<never>;
  /** Every approval started so far, settled. */
  all(): Promise<DeviceApproval[]>;
  /** Each browser's progress lines, for a failure's message. */
  log(): string;
}

/** A fresh {@linkcode DeviceUser}. */
export function deviceUser(): DeviceUser {
  const runs: BrowserRun[] = [];
  const approvals: Promise<DeviceApproval>[] = [];
  let fail!: (error: unknown) => void;
  const failed = new Promise<never>((_, reject) => fail = reject);
  failed.catch(() => {}); // seen by the steps that race it
  return {
    failed,
    approve(url, login, options = {}) {
      const run = runBrowser("device_browser.mjs", [
        url,
        login,
        ...(options.abort ? ["--abort"] : []),
      ]);
      runs.push(run);
      const approval = run.result as Promise<unknown> as Promise<DeviceApproval>;
      approval.catch(fail);
      approvals.push(approval);
      return approval;
    },
    all: () => Promise.all(approvals),
    log: () =>
      runs.length === 0
        ? "browser: not started\n"
        : runs.map((run, i) => `browser ${i + 1}:\n${run.log()}`).join(""),
  };
}

/**
 * One step of a device-flow test: `work` within `ms`, failing at once when a browser of
 * `user` fails. When it fails or times out, the message names the step, the browsers'
 * progress, the authorization server's events and, when given, the client's `status()`.
 */
export function step<T>(
  ms: number,
  what: string,
  work: Promise<T>,
  user: DeviceUser,
  setup: OidcSetup,
  client?: { status(): unknown },
): Promise<T> {
  const seen = () =>
    `${user.log()}authorization server: ${JSON.stringify(setup.events)}${
      client ? `\nclient: ${JSON.stringify(client.status())}` : ""
    }`;
  const failed = work.catch((error) => {
    throw new Error(`${what} failed: ${error}\n${seen()}`, { cause: error });
  });
  return within(ms, what, Promise.race([failed, user.failed]), seen);
}

// Two profiles on one server never mix: two real client processes (profile "work" signed in
// as alice, "personal" as bob) against one authorization server (oidc-provider, device flow)
// and one redis-server holding both their tokens and their result cache. Each process runs
// headless (`CI=true`, `flow: "auto"`): it takes the device flow, never asks for a listener
// or a browser, and reaches nothing of the authorization server but its metadata,
// registration, device authorization and token endpoints. No token, MCP session or private
// result crosses, and after both processes restart each gets its own again, without a
// login. A profile bound to another account (`expectSubject`) fails with
// `identity_mismatch` and keeps nothing.
//
// Needs Node, Chromium (skipped without it, except under CI=true) and redis-server.

import { fileURLToPath } from "node:url";
import { redisTokenStore } from "../../oauth/redis_store.ts";
import { spawnProcess } from "../../runtime/spawn.ts";
import { assert, assertEquals, scriptCommand, test } from "../_harness.ts";
import { startRedis } from "../cache/_redis.ts";
import { deviceUser, HAVE_BROWSER, NO_BROWSER, type OidcSetup, startOidc, step } from "./_oidc.ts";

const SCRIPT = fileURLToPath(new URL("../fixtures/profile_client.ts", import.meta.url));

interface Report {
  headless: string | null;
  texts?: string[];
  auth?: string;
  error?: string;
  listens: number;
  browsers: number;
  reached: string[];
  /** Device codes the process asked the user to approve. */
  codes: number;
}

/**
 * Runs one client process; approves its device login in Chromium as `login`. Fails as soon as
 * that browser fails, and after 120 s with how far the browser and the server got.
 */
async function runProfile(
  setup: OidcSetup,
  redisPort: number,
  profile: string,
  login: string,
  expectSubject = "",
): Promise<Report> {
  const child = spawnProcess({
    ...scriptCommand(SCRIPT),
    env: {
      MCP_URL: setup.resource,
      REDIS_PORT: String(redisPort),
      PROFILE: profile,
      EXPECT_SUBJECT: expectSubject,
      CI: "true",
    },
  });
  await child.stdin.close().catch(() => {});
  const errors = new Response(child.stderr).text();
  const user = deviceUser();
  let codes = 0;
  let report: Report | undefined;
  const read = async () => {
    let buffer = "";
    const decoder = new TextDecoder();
    for await (const chunk of child.stdout) {
      buffer += decoder.decode(chunk, { stream: true });
      for (let i = buffer.indexOf("\n"); i >= 0; i = buffer.indexOf("\n")) {
        const line = JSON.parse(buffer.slice(0, i));
        buffer = buffer.slice(i + 1);
        if (line.deviceCode) {
          codes++;
          user.approve(line.deviceCode.verificationUriComplete, login);
        } else report = { ...line, codes };
      }
    }
    await user.all();
    return await child.exited;
  };
  const status = await step(120_000, `the ${profile} process`, read(), user, setup)
    .catch((error) => {
      child.kill();
      throw error;
    });
  assertEquals(status.code, 0, `the ${profile} process failed: ${await errors}`);
  assert(report !== undefined, `no report from ${profile}: ${await errors}`);
  return report!;
}

test(
  "profiles: two accounts on one server and one redis never share a token, session or private result, across restarts",
  async () => {
    assert(HAVE_BROWSER, "Chromium is needed");
    await using setup = await startOidc();
    const redis = await startRedis();
    try {
      const allowed = new Set([
        `${new URL(setup.resource).origin}/.well-known/oauth-protected-resource/mcp`,
        `${setup.issuer}/.well-known/oauth-authorization-server`,
        `${setup.issuer}/.well-known/openid-configuration`,
        `${setup.issuer}/reg`,
        `${setup.issuer}/device/auth`,
        `${setup.issuer}/token`,
      ]);
      const checkHeadless = (report: Report) => {
        assertEquals(report.headless, "CI");
        assertEquals([report.listens, report.browsers], [0, 0], "no listener, no browser");
        for (const url of report.reached) assert(allowed.has(url), `reached ${url}`);
      };
      // 1. Both sign in (device flow, approved in Chromium), one after the other.
      const work = await runProfile(setup, redis.port, "work", "alice");
      const personal = await runProfile(setup, redis.port, "personal", "bob");
      for (const [report, login] of [[work, "alice"], [personal, "bob"]] as const) {
        assertEquals(report.error, undefined, JSON.stringify(report));
        assertEquals(report.codes, 1, "one device login");
        assertEquals(report.texts, [`the account of ${login}`, `the account of ${login}`]);
        assertEquals(report.auth, "ok");
        checkHeadless(report);
      }
      assert(work.reached.includes(`${setup.issuer}/device/auth`), JSON.stringify(work.reached));
      assertEquals(setup.reads, ["alice", "bob"], "each read once, the second from the cache");

      // 2. Both restart, side by side: their own tokens and cached results, no login.
      const again = await Promise.all([
        runProfile(setup, redis.port, "work", "nobody"),
        runProfile(setup, redis.port, "personal", "nobody"),
      ]);
      for (const [report, login] of [[again[0], "alice"], [again[1], "bob"]] as const) {
        assertEquals(report.error, undefined, JSON.stringify(report));
        assertEquals(report.codes, 0, "no login after the restart");
        assertEquals(report.texts, [`the account of ${login}`, `the account of ${login}`]);
        checkHeadless(report);
      }
      assertEquals(
        setup.reads,
        ["alice", "bob"],
        "private results served from redis, each to its own",
      );

      // No connection (one per process run) sent two accounts' tokens.
      assertEquals(setup.sessions.size, 4, [...setup.sessions.keys()].join(", "));
      for (const [id, subjects] of setup.sessions) {
        assertEquals([...subjects], [id.startsWith("work-") ? "alice" : "bob"], id);
      }
      assertEquals(new Set(setup.subjects), new Set(["alice", "bob"]));

      // The tokens: one set per profile, each naming its own account.
      const tokens = redisTokenStore((await redis.client()).command);
      const key = { principal: "default", issuer: setup.issuer, resource: setup.resource };
      const workTokens = await tokens.getTokens({ ...key, profile: "work" });
      const personalTokens = await tokens.getTokens({ ...key, profile: "personal" });
      assertEquals([workTokens?.subject, personalTokens?.subject], ["alice", "bob"]);
      assert(workTokens!.accessToken !== personalTokens!.accessToken);
      assert(workTokens!.refreshToken !== personalTokens!.refreshToken);
      assertEquals(await tokens.getTokens(key), undefined, "nothing under no profile");

      // 3. A profile bound to carol, signed in as alice: identity_mismatch, nothing kept.
      const audit = await runProfile(setup, redis.port, "audit", "alice", "carol");
      assertEquals(audit.error, "identity_mismatch");
      assertEquals(audit.codes, 1);
      assertEquals(await tokens.getTokens({ ...key, profile: "audit" }), undefined);
      checkHeadless(audit);
    } finally {
      await redis.close();
    }
  },
  { ignore: NO_BROWSER, timeout: 180_000 },
);

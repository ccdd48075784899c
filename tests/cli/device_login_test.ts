// The CLI's device login, profiles and whoami against the real authorization server
// (oidc-provider, device flow enabled): `login --device --profile work` prints a code, the
// test plays the user in Chromium on the provider's own page (as alice), the tokens are
// kept under the profile; `whoami --profile work` names alice from the stored tokens
// without printing any token, the default profile is not logged in, later commands with
// `--profile work` use the tokens, and `logout --profile work` forgets only them.

import { readFileSync } from "node:fs";
import { join } from "node:path";
import { assert, assertEquals, assertStringIncludes, test } from "../_harness.ts";
import { deviceUser, HAVE_BROWSER, NO_BROWSER, startOidc, step } from "../oauth/_oidc.ts";
import { runCli, tempConfig } from "./_helpers.ts";

test(
  "cli: login --device --profile work, whoami names the account, logout --profile forgets it",
  async () => {
    assert(HAVE_BROWSER, "Chromium is needed");
    await using setup = await startOidc();
    const config = tempConfig();
    try {
      const url = setup.resource;
      const user = deviceUser();
      let approving = false;
      let stop: ((name: "SIGINT" | "SIGTERM") => void) | undefined;
      const login = await step(
        100_000,
        "login --device, approved in Chromium",
        runCli(["login", url, "--device", "--profile", "work"], {
          configDir: config.dir,
          timeout: 90_000,
          onStart: (signal) => stop = signal,
          onStderr: (text) => {
            const page = /^ {2}(http:\/\/\S+)$/m.exec(text)?.[1];
            if (page !== undefined && !approving) {
              approving = true;
              user.approve(page, "alice");
            }
          },
        }),
        user,
        setup,
      ).catch((error) => {
        try {
          stop?.("SIGTERM"); // the CLI still waiting for the approval
        } catch {
          // it had ended
        }
        throw error;
      });
      assertEquals(login.code, 0, login.stderr);
      await step(20_000, "the browser closing", user.all(), user, setup);
      assertStringIncludes(login.stderr, "and enter the code ");
      assertStringIncludes(login.stdout, `Logged in to ${url} as profile work`);
      assertEquals(
        setup.count("grant", "grant_type", "urn:ietf:params:oauth:grant-type:device_code"),
        1,
      );

      const whoami = await runCli(["whoami", url, "--profile", "work"], { configDir: config.dir });
      assertEquals(whoami.code, 0, whoami.stderr);
      assertStringIncludes(whoami.stdout, `${url} (profile work): alice at ${setup.issuer}`);
      const json = await runCli(["whoami", url, "--profile", "work", "--json"], {
        configDir: config.dir,
      });
      const report = JSON.parse(json.stdout);
      assertEquals(report.profile, "work");
      assertEquals(report.accounts.map((a: { subject: string }) => a.subject), ["alice"]);
      // No token is ever printed.
      const file = JSON.parse(readFileSync(join(config.dir, "tokens.json"), "utf8"));
      const secrets = Object.values(file).flatMap((entry) => {
        const value = (entry as { value: Record<string, unknown> }).value;
        return [value.accessToken, value.refreshToken].filter((t) => typeof t === "string");
      }) as string[];
      assert(secrets.length >= 2, "the tokens are in the file");
      for (const secret of secrets) {
        for (const text of [login.stdout, login.stderr, whoami.stdout, json.stdout]) {
          assert(!text.includes(secret), "a token was printed");
        }
      }

      const other = await runCli(["whoami", url], { configDir: config.dir });
      assertEquals([other.code, other.stdout], [1, `Not logged in to ${url}\n`]);
      const tools = await runCli(["tools", url, "--profile", "work"], { configDir: config.dir });
      assertEquals(tools.code, 0, tools.stderr);
      assert(/^echo\s+/m.test(tools.stdout), tools.stdout);
      const plain = await runCli(["tools", url], { configDir: config.dir });
      assertEquals(plain.code, 3, "the default profile has no login");

      const logout = await runCli(["logout", url, "--profile", "work"], { configDir: config.dir });
      assertEquals([logout.code, logout.stdout], [0, `Logged out of ${url}\n`]);
      const gone = await runCli(["whoami", url, "--profile", "work"], { configDir: config.dir });
      assertEquals(gone.code, 1);
    } finally {
      config.dispose();
    }
  },
  { ignore: NO_BROWSER, timeout: 150_000 },
);

/**
 * `login <url>` (OAuth: the browser opens on the authorization page, or the URL is printed;
 * the loopback callback takes the redirect; where no browser can be used, or with
 * `--device`, the device flow prints a code to enter on another device; tokens go to the
 * token file under the config directory, per `--profile`), `whoami` (the account a profile
 * is bound to, from the stored tokens, never the tokens) and `logout <url>` (forgets them). The browser is started with an argument
 * vector, never through a shell: on Windows `rundll32 url.dll,FileProtocolHandler <url>`,
 * since `cmd /c start` would read each `&` of the authorization URL as a command separator.
 *
 * @module
 */

import { type Command, EXIT, printJson, withClient } from "../_command.ts";
import { clean } from "../_format.ts";
import { serverSpec } from "../_session.ts";
import { openBrowser } from "../_browser.ts";
import { configDir, tokenFile } from "../_token_file.ts";

export { browserCommand } from "../_browser.ts";

const LOGIN_HELP =
  `Usage: conduit-mcp login (<url> | <name>) [--no-browser] [--device] [--profile <name>]

Logs in to an HTTP server that asks for OAuth: registers this CLI with the authorization
server when needed, opens the browser on the login page (or prints its URL; --no-browser
only prints it), waits for the redirect on a loopback address, and stores the tokens in
tokens.json (mode 0600) under the config directory: $CONDUIT_MCP_CONFIG_DIR, else
$XDG_CONFIG_HOME/conduit-mcp, else ~/.config/conduit-mcp. Later commands to the same URL
use them (and refresh them).

Where no browser can be used (no display, an SSH session, CI) and the authorization server
offers it, or with --device, the device flow runs instead: a code and a page are printed;
enter the code there on any device, and the login completes here.

--profile <name> keeps the login apart from others to the same server (a work and a
personal account); later commands take the same --profile (or a config entry's "profile").
`;

/** The `login` command. */
export const LOGIN_COMMAND: Command = {
  name: "login",
  summary: "Log in to an HTTP server (OAuth) and keep the tokens",
  help: LOGIN_HELP,
  run: async (ctx) => {
    if ((await serverSpec(ctx.parsed, ctx.term)).url === undefined) {
      throw new TypeError("login needs the URL of an HTTP server");
    }
    return await withClient(ctx, async (client, spec) => {
      await client.ping({ signal: ctx.signal });
      const file = `${configDir(ctx.term.env)}/tokens.json`;
      const as = spec.profile === undefined ? "" : ` as profile ${spec.profile}`;
      if (ctx.parsed.flags.json) {
        printJson(ctx, { loggedIn: spec.label, profile: spec.profile ?? null, tokens: file });
      } else ctx.term.out(`Logged in to ${spec.label}${as}; tokens are kept in ${file}\n`);
      return EXIT.ok;
    }, {
      login: {
        flow: ctx.parsed.flags.device ? "device" : "auto",
        onAuthorizationUrl: (url) => {
          ctx.term.err(`To log in, open this URL in a browser:\n  ${url.href}\n`);
          if (!ctx.parsed.flags.noBrowser) openBrowser(url, ctx.term);
          ctx.term.err("Waiting for the login to complete (Ctrl-C to give up)…\n");
        },
        onDeviceCode: (code) => {
          const page = code.verificationUriComplete ?? code.verificationUri;
          ctx.term.err(
            `To log in, open this page on any device:\n  ${page}\n` +
              `and enter the code ${code.userCode} (it expires in ${
                Math.round(code.expiresIn / 60)
              } min)\n`,
          );
          if (ctx.parsed.flags.json) {
            printJson(ctx, {
              deviceCode: {
                userCode: code.userCode,
                verificationUri: code.verificationUri,
                verificationUriComplete: code.verificationUriComplete,
                expiresIn: code.expiresIn,
              },
            });
          }
          ctx.term.err("Waiting for the login to complete (Ctrl-C to give up)…\n");
        },
      },
    });
  },
};

/** The `logout` command. */
export const LOGOUT_COMMAND: Command = {
  name: "logout",
  summary: "Forget the tokens stored for an HTTP server",
  help: `Usage: conduit-mcp logout (<url> | <name>) [--profile <name>]

Removes the tokens login stored for the server at <url> (for that profile) from the token
file.
`,
  async run(ctx) {
    const spec = await serverSpec(ctx.parsed, ctx.term);
    if (spec.url === undefined) throw new TypeError("logout needs the URL of an HTTP server");
    const removed = await tokenFile(configDir(ctx.term.env)).forget(spec.url, spec.profile);
    if (ctx.parsed.flags.json) printJson(ctx, { loggedOut: spec.label, removed });
    else if (removed === 0) ctx.term.out(`No login was stored for ${spec.label}\n`);
    else ctx.term.out(`Logged out of ${spec.label}\n`);
    return EXIT.ok;
  },
};

/** The `whoami` command. */
export const WHOAMI_COMMAND: Command = {
  name: "whoami",
  summary: "Show the account a login (profile) is bound to, from the stored tokens",
  help: `Usage: conduit-mcp whoami (<url> | <name>) [--profile <name>]

Shows which account the tokens login stored for the server (and profile) belong to: the
authorization server, the account (subject), the scopes and whether they can be renewed.
It reads the token file only (no request is sent) and never prints a token.
`,
  async run(ctx) {
    const spec = await serverSpec(ctx.parsed, ctx.term);
    if (spec.url === undefined) throw new TypeError("whoami needs the URL of an HTTP server");
    const accounts = tokenFile(configDir(ctx.term.env)).accounts(spec.url, spec.profile);
    const profile = spec.profile ?? null;
    if (ctx.parsed.flags.json) {
      printJson(ctx, { server: spec.label, profile, accounts });
      return accounts.length === 0 ? EXIT.toolError : EXIT.ok;
    }
    const named = spec.profile === undefined ? "" : ` (profile ${spec.profile})`;
    if (accounts.length === 0) {
      ctx.term.out(`Not logged in to ${spec.label}${named}\n`);
      return EXIT.toolError;
    }
    for (const account of accounts) {
      const who = account.subject === undefined ? "an account it did not name" : account.subject;
      ctx.term.out(
        `${spec.label}${named}: ${clean(who)} at ${clean(account.issuer)}` +
          `${account.scope ? `; scopes ${clean(account.scope)}` : ""}` +
          `${account.refreshable ? "; renewable" : ""}\n`,
      );
    }
    return EXIT.ok;
  },
};

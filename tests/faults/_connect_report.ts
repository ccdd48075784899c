/**
 * Connects through the library at a given entry and prints, as one JSON line, how that
 * went: `{ kind, reason, message, attempts }`, or `{ connected: true }`. The fail-fast tests
 * run it in a Deno process started without some permission, or on a copy of the library
 * that has no `package.json` to map its packages.
 *
 * Arguments: `<entry URL of mod.ts> stdio <command>` (a stdio server), or
 * `<entry URL of mod.ts> http <url> [legacy|oauth|validate]` (Streamable HTTP; `legacy` pins
 * the era, `oauth` authorizes with client credentials, `validate` pins the era, validates
 * arguments and calls the tool `echo` once connected).
 *
 * @module
 */

import { io } from "../fixtures/_script_io.ts";

const [entry, kind, target, era] = io.args;
const library = await import(entry);
const auth = era === "oauth"
  ? { clientCredentials: { clientId: "svc", clientSecret: "not-a-real-secret" } }
  : undefined;
const transport = kind === "stdio"
  ? library.stdio({ command: target })
  : library.streamableHttp(target, { auth });
const validate = era === "validate";
const client = library.createClient({
  transport,
  protocol: era === "legacy" || validate ? "legacy" : "auto",
  ...(validate ? { validate: true } : {}),
  // Retrying would take minutes: a failure that ends connecting at once is the point.
  reconnect: { attempts: 5, initialDelay: 60_000 },
});
let report: Record<string, unknown>;
try {
  await client.ready(30_000);
  if (validate) await client.callTool("echo", { message: "hi" });
  report = { connected: true };
} catch (error) {
  const { kind, reason, message } = error as Record<string, unknown>;
  report = { kind, reason, message, attempts: client.status().attempts };
}
await client.close();
await io.out(JSON.stringify(report) + "\n");
await io.exit(0);

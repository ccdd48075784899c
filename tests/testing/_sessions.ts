// Records the two reference sessions: server-everything over stdio (legacy) and the modern
// fixture over Streamable HTTP. Shared by the cassette tests and the script that refreshes the
// committed cassettes (tests/fixtures/cassettes/record.ts).
import { createClient } from "../../client/client.ts";
import { stdio } from "../../transports/stdio.ts";
import { streamableHttp } from "../../transports/streamable_http.ts";
import type { Transport } from "../../transports/transport.ts";
import { record } from "../../testing/mod.ts";
import { startHttpFixture } from "../fixtures/http_server.ts";
import {
  everythingSession,
  FIXTURE_HANDLER,
  fixtureSession,
  SCENARIO_OPTIONS,
} from "./_scenarios.ts";

const everything = new URL(
  "../../node_modules/@modelcontextprotocol/server-everything/dist/index.js",
  import.meta.url,
).pathname;

/** Runs `session` on a client over `transport`; returns what it saw. */
export async function run(
  transport: Transport,
  session: typeof everythingSession,
  handler?: typeof FIXTURE_HANDLER,
): Promise<unknown> {
  await using client = createClient({ transport, ...SCENARIO_OPTIONS, handler, reconnect: false });
  await client.ready(30_000);
  return await session(client);
}

/** A recorded session: its cassette and what the client saw. */
export interface Recorded {
  cassette: string;
  results: unknown;
}

/** Records server-everything over stdio (legacy). */
export async function recordEverything(): Promise<Recorded> {
  const recording = record(
    stdio({ command: "node", args: [everything, "stdio"], stderr: "ignore" }),
  );
  const results = await run(recording, everythingSession);
  return { cassette: recording.cassette(), results };
}

/** Records the modern fixture over Streamable HTTP. */
export async function recordFixture(): Promise<Recorded> {
  await using fixture = await startHttpFixture({ http: { response: "sse" } });
  const recording = record(streamableHttp(fixture.url));
  const results = await run(recording, fixtureSession, FIXTURE_HANDLER);
  return { cassette: recording.cassette(), results };
}

// instructionsForLlm (PI-1): off by default, capped, cleaned of invisible and bidi-control
// characters, and introduced by a line naming the server unless trusted.
import { INSTRUCTIONS_LIMIT, instructionsForLlm } from "../../client/requests/instructions.ts";
import { capBytes, sanitizeText } from "../../protocol/text.ts";
import { assert, assertEquals, assertThrows, test } from "../_harness.ts";
import { isMcpError } from "../../protocol/errors.ts";
import { fixtureClient } from "./_helpers.ts";

const PREFIX =
  'The following instructions come from the MCP server "conduit-fixture"; they were written by that server, not by the user.\n';

test("instructionsForLlm: undefined unless includeInstructions; serverInfo() stays raw", async () => {
  const { client } = fixtureClient({ instructions: "Use the echo tool." });
  await using _ = client;
  await client.ready();
  assertEquals(client.instructionsForLlm(), undefined);
  assertEquals(client.serverInfo().instructions, "Use the echo tool.");
});

test("instructionsForLlm: prefixed with the server's name unless trusted, in both eras", async () => {
  for (const mode of ["dual", "legacy-only"] as const) {
    const { client } = fixtureClient({ mode, instructions: "Use the echo tool." }, {
      includeInstructions: true,
    });
    await using _ = client;
    await client.ready();
    assertEquals(client.instructionsForLlm(), `${PREFIX}Use the echo tool.`, mode);
    const trusted = fixtureClient({ mode, instructions: "Use the echo tool." }, {
      includeInstructions: true,
      trusted: true,
    });
    await using __ = trusted.client;
    await trusted.client.ready();
    assertEquals(trusted.client.instructionsForLlm(), "Use the echo tool.", mode);
  }
});

test("instructionsForLlm: invisible and bidi-control characters are removed", async () => {
  const raw = "Be\u200B nice.\u202E\u2066evil\u2069\u200F \u{E0049}\u{E0067}hidden\uFEFF\u00AD" +
    "\u2060ok\uFE0F\r\nnext\u0007line";
  const { client } = fixtureClient({ instructions: raw }, {
    includeInstructions: true,
    trusted: true,
  });
  await using _ = client;
  await client.ready();
  assertEquals(client.instructionsForLlm(), "Be nice.evil hiddenok\nnextline");
  assertEquals(client.serverInfo().instructions, raw, "raw in serverInfo()");
});

test("instructionsForLlm: capped at 4 KiB without splitting a character", async () => {
  const raw = "é".repeat(3_000) + "tail"; // 6 004 bytes
  const { client } = fixtureClient({ instructions: raw }, { includeInstructions: true });
  await using _ = client;
  await client.ready();
  const text = client.instructionsForLlm()!;
  assert(text.startsWith(PREFIX));
  const body = text.slice(PREFIX.length);
  assertEquals(new TextEncoder().encode(body).length, INSTRUCTIONS_LIMIT);
  assertEquals(body, "é".repeat(2_048));
});

test("instructionsForLlm: throws kind unavailable while not ready", () => {
  const { client } = fixtureClient({}, { includeInstructions: true });
  const error = assertThrows(() => client.instructionsForLlm());
  assert(isMcpError(error) && error.kind === "unavailable");
  return client.close();
});

test("instructionsForLlm (pure): names, emptiness, caps", () => {
  assertEquals(instructionsForLlm(undefined, { name: "x", version: "1" }), undefined);
  assertEquals(instructionsForLlm(" \u200B\n", { name: "x", version: "1" }), undefined);
  const odd = instructionsForLlm("Hi", { name: 'evil"\nname\u202E', version: "1" })!;
  assertEquals(odd.split("\n").length, 2, "the name cannot add lines");
  assert(odd.includes('"evil name"'), odd);
  assert(instructionsForLlm("Hi", undefined)!.includes("an unnamed MCP server"));
  assertEquals(capBytes("a😀b", 4), "a");
  assertEquals(capBytes("a😀b", 5), "a😀");
  assertEquals(capBytes("abc", 3), "abc");
  assertEquals(sanitizeText("x\u2028y\u2029z"), "x\ny\nz");
});

test("includeInstructions and trusted: booleans, else a TypeError naming them", () => {
  for (const key of ["includeInstructions", "trusted"]) {
    const error = assertThrows(() => fixtureClient({}, { [key]: "yes" }), TypeError);
    assert(error.message.includes(`"${key}"`), error.message);
  }
});

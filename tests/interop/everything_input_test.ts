// Interop of the handler with the real @modelcontextprotocol/server-everything (SDK v1,
// legacy era): its sampling, elicitation (form and URL) and roots requests, over stdio and
// over Streamable HTTP (tool-related requests on the POST event stream, the roots sync on
// the GET stream).
import { connect } from "../../mod.ts";
import type { McpClient, ToolResult } from "../../client/types.ts";
import type { ClientHandler, HandlerContext } from "../../protocol/capabilities.ts";
import { assert, assertEquals, assertStringIncludes, test } from "../_harness.ts";
import { startEverythingHttp } from "./_everything_http.ts";

const everything = new URL(
  "../../node_modules/@modelcontextprotocol/server-everything/dist/index.js",
  import.meta.url,
).pathname;

function text(result: ToolResult): string {
  return result.content.map((block) => String(block.text ?? "")).join("\n");
}

/** A handler that records what it was asked; roots can be changed by the test. */
function host() {
  const asked: { kind: string; params?: Record<string, unknown>; ctx: HandlerContext }[] = [];
  let roots = [{ uri: "file:///work/project", name: "project" }];
  const handler: ClientHandler = {
    sampling(params, ctx) {
      asked.push({ kind: "sampling", params, ctx });
      return {
        role: "assistant",
        content: { type: "text", text: "a stub completion" },
        model: "conduit-stub-model",
        stopReason: "endTurn",
      };
    },
    elicitation(params, ctx) {
      asked.push({ kind: "elicitation", params, ctx });
      // The user types a name and accepts; the form's defaults fill the rest (SEP-1034).
      return params.mode === "url"
        ? { action: "accept" }
        : { action: "accept", content: { name: "Ada Lovelace" } };
    },
    listRoots(ctx) {
      asked.push({ kind: "roots", ctx });
      return roots;
    },
  };
  return {
    handler,
    asked,
    setRoots(next: typeof roots) {
      roots = next;
    },
    count: (kind: string) => asked.filter((a) => a.kind === kind).length,
  };
}

async function waitFor(check: () => boolean, what: string, timeout = 10_000): Promise<void> {
  const end = Date.now() + timeout;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** The checks shared by both transports. */
async function exercise(client: McpClient, h: ReturnType<typeof host>): Promise<void> {
  assertEquals(client.era(), "legacy");
  const sampled = await client.callTool("trigger-sampling-request", {
    prompt: "hello",
    maxTokens: 20,
  });
  assertStringIncludes(text(sampled), "conduit-stub-model");
  assertStringIncludes(text(sampled), "a stub completion");
  const sampling = h.asked.find((a) => a.kind === "sampling")!;
  assertEquals(sampling.params?.maxTokens, 20);
  assertEquals([sampling.ctx.era, sampling.ctx.protocolVersion], ["legacy", "2025-11-25"]);

  const elicited = await client.callTool("trigger-elicitation-request", {});
  const shown = text(elicited);
  assertStringIncludes(shown, "Name: Ada Lovelace");
  // Defaults the handler left out, filled by the client: integer 42 and number 3.14.
  assertStringIncludes(shown, "Favorite Integer: 42");
  assertStringIncludes(shown, "Favorite Number: 3.14");
  assertStringIncludes(shown, '"untitledSingleSelectEnum": "Monica"');

  const url = await client.callTool("trigger-url-elicitation", {
    url: "https://example.com/login",
  });
  assertStringIncludes(text(url), "User completed the URL elicitation flow");
  const urlAsk = h.asked.find((a) => a.kind === "elicitation" && a.params?.mode === "url")!;
  assertEquals(urlAsk.params?.url, "https://example.com/login");

  const roots = await client.callTool("get-roots-list", {});
  assertStringIncludes(text(roots), "file:///work/project");

  // The server re-reads the roots when told they changed; its request is not tied to any
  // call (over HTTP it comes on the GET stream).
  const before = h.count("roots");
  h.setRoots([{ uri: "file:///work/other", name: "other" }]);
  await client.notifyRootsChanged();
  await waitFor(() => h.count("roots") > before, "the roots request after list_changed");
  // The server stores the answer when it arrives: ask until the tool shows it.
  let listed = "";
  for (let i = 0; i < 50 && !listed.includes("file:///work/other"); i++) {
    if (i > 0) await new Promise((resolve) => setTimeout(resolve, 20));
    listed = text(await client.callTool("get-roots-list", {}));
  }
  assertStringIncludes(listed, "file:///work/other");
}

test("server-everything over stdio: the handler answers sampling, elicitation, roots", async () => {
  const h = host();
  await using client = await connect({
    command: "node",
    args: [everything, "stdio"],
    closeGracePeriod: 1_000,
    terminateGracePeriod: 1_000,
  }, { handler: h.handler, rootsListChanged: true, requestTimeout: 20_000, reconnect: false });
  await exercise(client, h);
  assert(client.status().state === "ready");
}, { timeout: 60_000 });

test(
  "server-everything over HTTP: the handler answers on POST streams and the GET stream",
  async () => {
    await using server = await startEverythingHttp();
    const h = host();
    await using client = await connect(server.url, {
      handler: h.handler,
      rootsListChanged: true,
      requestTimeout: 20_000,
      reconnect: false,
    });
    // The server asks for the roots on its own shortly after initialization: that request can
    // only travel on the GET stream.
    await waitFor(() => h.count("roots") > 0, "the server's initial roots/list");
    await exercise(client, h);
  },
  { timeout: 60_000 },
);

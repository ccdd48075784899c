/**
 * A tiny edge worker that uses only `http.ts`: POST it a job (an MCP server URL, a tool and
 * its arguments) and it connects, lists the tools, calls the tool, closes, and answers with
 * what it saw. Bundled by `workerd_test.ts` and run inside `workerd` through Miniflare.
 *
 * @module
 */

import { connect, isMcpError, type McpClient } from "../../http.ts";

/** What the test asks the worker to do. */
export interface EdgeJob {
  /** The MCP endpoint. */
  url: string;
  /** The client's protocol choice (default `"auto"`). */
  protocol?: string;
  /** The tool to call. */
  tool: string;
  /** Its arguments. */
  args?: Record<string, unknown>;
}

/** What the worker answers. */
export interface EdgeAnswer {
  /** The worker runtime's user agent (`Cloudflare-Workers` in workerd). */
  userAgent: string;
  /** Which runtime globals the worker can see. */
  globals: { Deno: string; Bun: string; process: string };
  /** The negotiated era and version. */
  era?: string;
  version?: string;
  /** The listed tool names. */
  tools?: string[];
  /** The tool result. */
  result?: unknown;
  /** A failure: its message and kind. */
  error?: { message: string; kind?: string; reason?: string };
}

function globals(): EdgeAnswer["globals"] {
  const g = globalThis as Record<string, unknown>;
  return { Deno: typeof g.Deno, Bun: typeof g.Bun, process: typeof g.process };
}

export default {
  async fetch(request: Request): Promise<Response> {
    if (request.method !== "POST") return new Response("POST an EdgeJob", { status: 405 });
    const job = await request.json() as EdgeJob;
    const answer: EdgeAnswer = { userAgent: navigator.userAgent, globals: globals() };
    let client: McpClient | undefined;
    try {
      client = await connect(job.url, {
        protocol: job.protocol ?? "auto",
        clientInfo: { name: "conduit-edge-worker", version: "0.0.0" },
        requestTimeout: 10_000,
        reconnect: false,
      });
      answer.era = client.era();
      answer.version = client.serverInfo().version;
      answer.tools = (await client.listAllTools()).map((tool) => tool.name);
      answer.result = await client.callTool(job.tool, job.args ?? {});
    } catch (error) {
      answer.error = {
        message: String((error as Error)?.message ?? error),
        kind: isMcpError(error) ? error.kind : undefined,
        reason: isMcpError(error) ? error.reason : undefined,
      };
    } finally {
      await client?.close();
    }
    return Response.json(answer, { status: answer.error ? 500 : 200 });
  },
};

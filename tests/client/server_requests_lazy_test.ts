// The legacy inbox of server-to-client requests loads with the first request but ping
// (`client/handler/server_requests.ts` is its stand-in): what arrives while it loads is
// handed over in order, so each request is answered once and a cancellation sent while it
// loads still holds.
import { resolveOptions } from "../../client/_resolve_options.ts";
import { createServerRequests } from "../../client/handler/server_requests.ts";
import type { HandlerContext } from "../../protocol/capabilities.ts";
import type { JsonRpcResponse } from "../../protocol/jsonrpc.ts";
import { inProcess } from "../../transports/in_process.ts";
import { assert, assertEquals, test } from "../_harness.ts";
import { waitFor } from "./_helpers.ts";

const SAMPLE = {
  messages: [{ role: "user", content: { type: "text", text: "hi" } }],
  maxTokens: 5,
};

/** An inbox of a legacy link whose sampling handler waits until it is aborted. */
function inbox() {
  const answers: JsonRpcResponse[] = [];
  const sampled: HandlerContext[] = [];
  const warnings: string[] = [];
  const options = resolveOptions({
    transport: inProcess({ connect: () => ({ receive() {} }) }),
    handler: {
      listRoots: () => [{ uri: "file:///work" }],
      sampling(_params, ctx) {
        sampled.push(ctx);
        return new Promise((_resolve, reject) =>
          ctx.signal.addEventListener("abort", () => reject(ctx.signal.reason), { once: true })
        );
      },
    },
    onWarning: (message) => warnings.push(message),
  });
  const link = new AbortController();
  const requests = createServerRequests({
    options,
    protocol: () => ({ era: "legacy", version: "2025-11-25" }),
    respond(response) {
      answers.push(response);
      return Promise.resolve();
    },
    signal: link.signal,
  });
  return { requests, answers, sampled, warnings, link };
}

test("server requests: those sent while the inbox loads are answered once, handled in order of arrival", async () => {
  const { requests, answers, sampled } = inbox();
  requests.request({ jsonrpc: "2.0", id: 1, method: "roots/list" });
  requests.request({ jsonrpc: "2.0", id: 2, method: "sampling/createMessage", params: SAMPLE });
  requests.request({ jsonrpc: "2.0", id: 3, method: "ping" });
  // The cancellation of a request still waiting for the inbox holds once it is in.
  requests.notification({
    jsonrpc: "2.0",
    method: "notifications/cancelled",
    params: { requestId: 2, reason: "changed my mind" },
  });
  requests.request({ jsonrpc: "2.0", id: 4, method: "roots/list" });
  requests.request({ jsonrpc: "2.0", id: "x", method: "no/such" });
  // Ping is answered at once; the rest wait for the inbox (and count as pending meanwhile).
  assertEquals(answers.map((a) => a.id), [3]);
  assertEquals(requests.pending(), 4);
  await waitFor(() => answers.length >= 4, "the answers", 5_000);
  await new Promise((resolve) => setTimeout(resolve, 50));
  // Each is answered once. Handlers finish in their own time (an unknown method is answered
  // at once, a handler's answer a turn later), so only answers of the same kind keep the
  // order their requests came in.
  assertEquals(answers.length, 4);
  assertEquals(answers[0].id, 3);
  const byId = (id: number | string) => answers.find((a) => a.id === id);
  const roots = { roots: [{ uri: "file:///work" }] };
  assertEquals(answers.filter((a) => "result" in a && a.id !== 3).map((a) => a.id), [1, 4]);
  assertEquals(byId(1), { jsonrpc: "2.0", id: 1, result: roots });
  assertEquals(byId(4), { jsonrpc: "2.0", id: 4, result: roots });
  assertEquals((byId("x") as { error: { code: number } }).error.code, -32601);
  // No answer for request 2: its handler never ran, or was aborted by the cancellation.
  assert(sampled.every((ctx) => ctx.signal.aborted), "the cancelled request's handler is aborted");
  assertEquals(requests.pending(), 0);
});

test("server requests: once loaded the inbox answers directly; a closed link's requests are not", async () => {
  const { requests, answers, link } = inbox();
  requests.request({ jsonrpc: "2.0", id: 1, method: "roots/list" });
  await waitFor(() => answers.length === 1, "the first answer", 5_000);
  requests.request({ jsonrpc: "2.0", id: 2, method: "roots/list" });
  await waitFor(() => answers.length === 2, "the second answer", 5_000);
  link.abort();
  requests.request({ jsonrpc: "2.0", id: 3, method: "roots/list" });
  requests.request({ jsonrpc: "2.0", id: 4, method: "ping" });
  await new Promise((resolve) => setTimeout(resolve, 50));
  assertEquals(answers.map((a) => a.id), [1, 2, 4]);
});

test("server requests: a modern server's requests are ignored, ping too, and load nothing", () => {
  const answers: JsonRpcResponse[] = [];
  const warnings: string[] = [];
  const options = resolveOptions({
    transport: inProcess({ connect: () => ({ receive() {} }) }),
    onWarning: (message) => warnings.push(message),
  });
  const requests = createServerRequests({
    options,
    protocol: () => ({ era: "modern", version: "2026-07-28" }),
    respond(response) {
      answers.push(response);
      return Promise.resolve();
    },
    signal: new AbortController().signal,
  });
  requests.request({ jsonrpc: "2.0", id: 1, method: "ping" });
  requests.request({ jsonrpc: "2.0", id: 2, method: "roots/list" });
  assertEquals(answers, []);
  assertEquals(requests.pending(), 0);
  assertEquals(warnings.length, 2);
});

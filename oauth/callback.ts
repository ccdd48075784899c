/**
 * The loopback redirect receiver: a tiny Hono app on 127.0.0.1 (a fixed port, or any free
 * one) that takes the browser's redirect after login. It answers only requests to its
 * path that carry a `state` some authorization waits for, hands each such response over
 * once (a `state` nobody waits for gets 400), and stops listening when the authorization is done.
 *
 * Full entry only (it needs `runtime/serve.ts`).
 *
 * @module
 */

import { browserUnavailable } from "../runtime/headless.ts";
import { checkKeys } from "../protocol/option_keys.ts";
import type { CallbackListener, CallbackReceiver } from "./options.ts";

/** Options for {@linkcode loopbackCallback}. */
export interface LoopbackCallbackOptions {
  /** The port (default `0`: a free one, so the redirect URI changes every time). */
  port?: number;
  /** The interface and host of the redirect URI (default `"127.0.0.1"`). */
  hostname?: string;
  /** The path of the redirect URI (default `"/callback"`). */
  path?: string;
  /** The page shown in the browser once the response is received. */
  successHtml?: string;
}

const DEFAULT_PAGE = "<!doctype html><meta charset=utf-8><title>Signed in</title>" +
  "<p>Signed in. You can close this window and return to the application.</p>";

/**
 * A {@linkcode CallbackReceiver} that listens on the loopback interface while an
 * authorization waits for its redirect.
 *
 * @param options Port, hostname, path and page.
 * @returns The receiver; pass it as the OAuth `callback` option.
 * @throws {RangeError} For a bad port.
 *
 * @example Receive one redirect
 * ```ts
 * import { loopbackCallback } from "./callback.ts";
 *
 * await using listener = await loopbackCallback().listen();
 * const received = listener.wait("state-1");
 * const page = await fetch(`${listener.redirectUri}?code=abc&state=state-1`);
 * await page.body?.cancel();
 * const url = await received;
 * if (url.searchParams.get("code") !== "abc") throw new Error();
 * ```
 */
export function loopbackCallback(
  options: LoopbackCallbackOptions = {},
): LoopbackCallback {
  checkKeys(options, ["port", "hostname", "path", "successHtml"], "loopbackCallback options");
  const port = options.port ?? 0;
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new RangeError("options.port must be an integer from 0 to 65535");
  }
  const hostname = options.hostname ?? "127.0.0.1";
  const path = options.path ?? "/callback";
  if (!path.startsWith("/")) throw new TypeError('options.path must start with "/"');
  const page = options.successHtml ?? DEFAULT_PAGE;
  return {
    browserUnavailable: () => browserUnavailable(),
    async listen(listenOptions = {}) {
      const waiting = new Map<string, (url: URL) => void>();
      // Hono and the server load when a login actually needs the loopback receiver.
      const [{ Hono }, { serve }] = await Promise.all([
        import("hono"),
        import("../runtime/serve.ts"),
      ]);
      const app = new Hono();
      app.get(path, (c) => {
        const url = new URL(c.req.url);
        const state = url.searchParams.get("state");
        const resolve = state === null ? undefined : waiting.get(state);
        if (state === null || resolve === undefined) {
          return c.text("Unknown, expired or already used authorization state.", 400);
        }
        waiting.delete(state);
        resolve(url);
        return c.html(page);
      });
      app.notFound((c) => c.text("Not found", 404));
      const server = await serve(app.fetch, { hostname, port, signal: listenOptions.signal });
      const host = hostname.includes(":") ? `[${hostname}]` : hostname;
      const redirectUri = `http://${host}:${server.port}${path}`;
      const used = new Set<string>();
      const listener: LoopbackListener = {
        redirectUri,
        port: server.port,
        wait(state, signal) {
          if (used.has(state)) {
            return Promise.reject(new TypeError("this state was already waited for"));
          }
          used.add(state);
          return new Promise<URL>((resolve, reject) => {
            const onAbort = () => {
              waiting.delete(state);
              reject(signal?.reason);
            };
            if (signal?.aborted) return onAbort();
            signal?.addEventListener("abort", onAbort, { once: true });
            waiting.set(state, (url) => {
              signal?.removeEventListener("abort", onAbort);
              resolve(url);
            });
          });
        },
        close: () => server.close(),
        [Symbol.asyncDispose]: () => server.close(),
      };
      return listener;
    },
  };
}

/** The receiver {@linkcode loopbackCallback} returns. */
export interface LoopbackCallback extends CallbackReceiver {
  /** Why no browser can come back here (no display, an SSH session, CI), or `undefined`. */
  browserUnavailable(): string | undefined;
  /** Starts listening on the loopback interface. */
  listen(options?: { signal?: AbortSignal }): Promise<LoopbackListener>;
}

/** A listening loopback receiver. */
export interface LoopbackListener extends CallbackListener {
  /** The bound port. */
  readonly port: number;
  /** Same as `close()`, for `await using`. */
  [Symbol.asyncDispose](): Promise<void>;
}

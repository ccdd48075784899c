/**
 * One HTTP server API over `Deno.serve` and `Bun.serve`, for test fixtures and the OAuth
 * loopback callback: hand it a fetch-style handler, get back the bound URL and a `close()`
 * that really ends every connection (open SSE streams included).
 *
 * @module
 */

/** A fetch-style request handler, e.g. a Hono app's `app.fetch`. */
export type ServeHandler = (request: Request) => Response | Promise<Response>;

/** Options for {@linkcode serve}. */
export interface ServeOptions {
  /** The interface to bind (default `"127.0.0.1"`). */
  hostname?: string;
  /** The port to bind (default `0`: any free port). */
  port?: number;
  /** Closes the server when aborted. */
  signal?: AbortSignal;
}

/** A running server from {@linkcode serve}. */
export interface Server {
  /** The server's base URL, e.g. `http://127.0.0.1:43117/`. */
  readonly url: URL;
  /** The bound port. */
  readonly port: number;
  /**
   * Stops accepting connections and ends open ones, including response bodies still
   * streaming. Idempotent; resolves once the server has stopped.
   */
  close(): Promise<void>;
  /** Same as {@linkcode Server.close}, for `await using`. */
  [Symbol.asyncDispose](): Promise<void>;
}

// Structural views of the two runtimes' server APIs: only what this file uses.
interface DenoHttpServer {
  addr: { hostname: string; port: number };
  shutdown(): Promise<void>;
}
interface DenoLike {
  serve(
    options: {
      hostname: string;
      port: number;
      onListen?: (addr: { hostname: string; port: number }) => void;
    },
    handler: (request: Request) => Response | Promise<Response>,
  ): DenoHttpServer;
}
interface BunServer {
  port: number;
  stop(closeActiveConnections?: boolean): Promise<void> | void;
}
interface BunLike {
  serve(options: {
    hostname: string;
    port: number;
    idleTimeout?: number;
    fetch(request: Request): Response | Promise<Response>;
  }): BunServer;
}

interface OpenBody {
  controller: ReadableStreamDefaultController<Uint8Array>;
  reader: ReadableStreamDefaultReader<Uint8Array>;
}

/**
 * Wraps response bodies so that `close()` can end streams the handler never ends (an SSE
 * stream left open); `Deno.serve`'s shutdown would otherwise wait for them forever.
 */
function bodyTracker(): {
  wrap(response: Response): Response;
  endAll(): void;
} {
  const open = new Set<OpenBody>();
  let ended = false;
  return {
    wrap(response) {
      const source = response.body;
      if (source === null) return response;
      const reader = source.getReader();
      let entry: OpenBody | undefined;
      const body = new ReadableStream<Uint8Array>({
        start(controller) {
          entry = { controller, reader };
          if (ended) {
            controller.close();
            reader.cancel().catch(() => {});
          } else open.add(entry);
        },
        async pull(controller) {
          try {
            const { done, value } = await reader.read();
            if (!open.has(entry!)) return; // ended by close()
            if (done) {
              open.delete(entry!);
              controller.close();
            } else controller.enqueue(value);
          } catch (error) {
            if (!open.delete(entry!)) return;
            controller.error(error);
          }
        },
        cancel(reason) {
          open.delete(entry!);
          return reader.cancel(reason);
        },
      });
      return new Response(body, {
        status: response.status,
        statusText: response.statusText,
        headers: response.headers,
      });
    },
    endAll() {
      ended = true;
      for (const { controller, reader } of open) {
        // Ending the body (rather than erroring it, which runtimes log) lets the server's
        // shutdown finish; the source stops producing.
        try {
          controller.close();
        } catch {
          // already closed
        }
        reader.cancel().catch(() => {});
      }
      open.clear();
    },
  };
}

/**
 * Serves `handler` over HTTP with the current runtime's server (`Deno.serve` or
 * `Bun.serve`). Binds `127.0.0.1` on a free port unless told otherwise.
 *
 * @param handler Answers each request.
 * @param options Where to bind, and a signal that closes the server.
 * @returns The running server, once it listens.
 *
 * @example Serve and fetch
 * ```ts
 * import { serve } from "./serve.ts";
 *
 * await using server = await serve(() => new Response("hello"));
 * const text = await (await fetch(server.url)).text();
 * if (text !== "hello") throw new Error("unexpected body");
 * ```
 */
export function serve(handler: ServeHandler, options: ServeOptions = {}): Promise<Server> {
  // The executor turns synchronous failures (a bad port, a port in use) into rejections.
  return new Promise((resolve) => resolve(start(handler, options)));
}

function start(handler: ServeHandler, options: ServeOptions): Server {
  const hostname = options.hostname ?? "127.0.0.1";
  const port = options.port ?? 0;
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new RangeError(`options.port must be an integer from 0 to 65535, got ${port}`);
  }
  const signal = options.signal;
  signal?.throwIfAborted();
  const tracker = bodyTracker();
  const handle = async (request: Request): Promise<Response> =>
    tracker.wrap(await handler(request));

  // deno-lint-ignore no-explicit-any
  const g = globalThis as any;
  let boundPort: number;
  let stop: () => Promise<void>;
  if (typeof g.Bun !== "undefined") {
    const bun = g.Bun as BunLike;
    const server = bun.serve({ hostname, port, idleTimeout: 0, fetch: handle });
    boundPort = server.port;
    stop = async () => {
      // Bun ends active connections itself; the tracker then only releases the sources.
      const stopped = server.stop(true);
      tracker.endAll();
      await stopped;
    };
  } else if (typeof g.Deno !== "undefined") {
    const deno = g.Deno as DenoLike;
    const server = deno.serve({ hostname, port, onListen: () => {} }, handle);
    boundPort = server.addr.port;
    stop = async () => {
      tracker.endAll();
      await server.shutdown();
    };
  } else {
    throw new TypeError("serve() needs Deno or Bun");
  }

  const host = hostname.includes(":") ? `[${hostname}]` : hostname;
  const url = new URL(`http://${host}:${boundPort}/`);
  let closing: Promise<void> | undefined;
  const close = (): Promise<void> => {
    signal?.removeEventListener("abort", close);
    closing ??= stop();
    return closing;
  };
  signal?.addEventListener("abort", close, { once: true });
  return { url, port: boundPort, close, [Symbol.asyncDispose]: close };
}

/**
 * The shape of `fetch` the HTTP transport and the OAuth middleware take: a type only, here
 * below both, so OAuth needs nothing from the transports.
 *
 * @module
 */

/**
 * A `fetch`-compatible function, such as `globalThis.fetch` or a Hono app's `app.fetch`.
 *
 * @example Answer in-process
 * ```ts
 * import type { FetchLike } from "./fetch_like.ts";
 *
 * const fetchLike: FetchLike = (input, init) =>
 *   Promise.resolve(new Response(`${new Request(input, init).method} ok`));
 * if ((await (await fetchLike("http://x.test/", { method: "POST" })).text()) !== "POST ok") {
 *   throw new Error("unexpected");
 * }
 * ```
 */
export type FetchLike = (input: Request | URL | string, init?: RequestInit) => Promise<Response>;

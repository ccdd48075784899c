/**
 * Private to the package's folders: how an OAuth middleware tells who listens that it is
 * fetching tokens (a grant or a refresh), so that a traced client can show it as a span.
 * The middleware's fetch function and a Streamable HTTP transport carry a set of
 * {@linkcode TokenObserver}s under {@linkcode TOKEN_OBSERVERS}; the set is empty, and each
 * fetch of tokens costs one size check, until a client with a tracer adds to it.
 *
 * @module
 */

/** One fetch of tokens in progress, as an observer follows it. */
export interface TokenWatch {
  /** It ended: `error` when it failed, else how (`refreshed`, `authorized`, `stored`, …). */
  end(error?: unknown, outcome?: string): void;
}

/** Told when tokens are fetched; returns what follows that fetch, if anything. */
export type TokenObserver = (event: { refresh: boolean }) => TokenWatch | undefined;

/** Where a middleware's fetch, or a transport, keeps its observers. */
export const TOKEN_OBSERVERS: unique symbol = Symbol.for("@conduit/mcp.token-observers");

/** The observers `holder` carries, if any. */
export function tokenObserversOf(holder: unknown): Set<TokenObserver> | undefined {
  if ((typeof holder !== "object" || holder === null) && typeof holder !== "function") {
    return undefined;
  }
  return (holder as { [TOKEN_OBSERVERS]?: Set<TokenObserver> })[TOKEN_OBSERVERS];
}

/** Gives `holder` the set of observers `observers` (not enumerable) and returns it. */
export function holdTokenObservers<T extends object>(holder: T, observers: Set<TokenObserver>): T {
  Object.defineProperty(holder, TOKEN_OBSERVERS, { value: observers });
  return holder;
}

/**
 * Tells `observers` that tokens are being fetched, and each of them how `flight` ended.
 *
 * @param observers The observers.
 * @param refresh Whether it is a refresh ahead of expiry (else a recovery after a refusal).
 * @param flight The fetch.
 */
export function watchTokens(
  observers: ReadonlySet<TokenObserver>,
  refresh: boolean,
  flight: Promise<{ how: string }>,
): void {
  const watches: TokenWatch[] = [];
  for (const observer of observers) {
    try {
      const watch = observer({ refresh });
      if (watch !== undefined) watches.push(watch);
    } catch {
      // An observer that throws must not break authorization.
    }
  }
  if (watches.length === 0) return;
  const end = (error?: unknown, outcome?: string) => {
    for (const watch of watches) {
      try {
        watch.end(error, outcome);
      } catch {
        // as above
      }
    }
  };
  flight.then((result) => end(undefined, result.how), (error) => end(error));
}

/**
 * An observer that passes every event on to the observers in `to` (a transport's, whose
 * middleware changes with `setAuth`).
 *
 * @param to The observers to tell.
 * @returns The forwarding observer.
 */
export function forwardTokens(to: ReadonlySet<TokenObserver>): TokenObserver {
  return (event) => {
    const watches: TokenWatch[] = [];
    for (const observer of to) {
      const watch = observer(event);
      if (watch !== undefined) watches.push(watch);
    }
    if (watches.length === 0) return undefined;
    return { end: (error, outcome) => watches.forEach((watch) => watch.end(error, outcome)) };
  };
}

/**
 * Private: the `fetch` an OAuth middleware hands out. It attaches the current tokens, and
 * on a 401 has the engine recover (refresh or authorize, once for all concurrent requests)
 * and retries; on a 403 `insufficient_scope` it steps up a bounded number of times per
 * operation; a `use_dpop_nonce` challenge is retried with the fresh nonce.
 *
 * @module
 */

import { readChallenge } from "./challenge.ts";
import type { Engine } from "./_engine.ts";
import { prepare } from "./_request.ts";
import { discard, type FetchLike } from "./_util.ts";
import { needsReauthError } from "./auth_status.ts";

// The middleware loads the engine with this fetch, through this module: one lazy load.
export { createEngine } from "./_engine.ts";

/** Wraps `next` so every request is authorized by `engine`. */
export function authorizingFetch(engine: Engine, next: FetchLike): FetchLike {
  return async (input, init) => {
    // After a refused refresh, nothing is sent until a new login.
    if (engine.needsReauth()) throw needsReauthError();
    const request = prepare(input, init);
    const session = engine.session(request.url);
    let tokens = await engine.usableTokens(session, request.signal);
    let recoveries = 0;
    let lastHow: string | undefined;
    let nonceRetries = 0;
    for (;;) {
      const sent = tokens;
      const response = await request.send(
        next,
        (headers) => engine.attach(session, headers, sent, request.method, request.url),
      );
      const fresh = session.dpop?.rememberNonce(request.url, response) ?? false;
      if (response.status !== 401 && response.status !== 403) {
        if (response.ok) session.stepUps.delete(request.operation);
        return response;
      }
      const challenge = readChallenge(response);
      if (challenge.error === "use_dpop_nonce" && fresh && nonceRetries < 2 && request.replayable) {
        nonceRetries++;
        discard(response);
        continue;
      }
      if (!request.replayable) return response;
      if (response.status === 401) {
        if (recoveries >= 2 || lastHow === "authorized") return response;
        discard(response);
        const recovery = await engine.recover(session, {
          failed: sent,
          challenge,
          // Tokens just read from the store were refused: their refresh token is tried
          // next (a login only comes from a recovery that had nothing to refresh).
          reauthorize: recoveries > 0 && lastHow !== "stored",
        }, request.signal);
        recoveries++;
        lastHow = recovery.how;
        tokens = recovery.tokens;
        continue;
      }
      // Step-ups are counted per operation, across calls, until one succeeds.
      const stepUps = session.stepUps.get(request.operation) ?? 0;
      if (challenge.error !== "insufficient_scope" || stepUps >= engine.maxStepUps) return response;
      discard(response);
      session.stepUps.set(request.operation, stepUps + 1);
      const recovery = await engine.recover(
        session,
        { failed: sent, challenge, stepUp: true },
        request.signal,
      );
      tokens = recovery.tokens;
    }
  };
}

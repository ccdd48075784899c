/**
 * Private: where a transport applies its {@linkcode Secrets} (which `recordingFetch` in
 * `oauth/recording_fetch.ts` fills from every outgoing request): `guardSink` and
 * `guardLink` pass everything a link hands to the client (messages, warnings, the closing
 * error, rejections, probe outcomes) through the one redaction step.
 *
 * @module
 */

import { createSecrets, isCredentialName, type Secrets } from "../protocol/secrets.ts";
import type { HttpProbeResult, TransportLink, TransportSink } from "./transport.ts";

/**
 * The credentials among the environment variables a server process is given: those whose
 * names pass the one credential-name rule (`GITHUB_TOKEN`, `API_KEY`, `passphrase`, …).
 *
 * @param env The variables.
 * @returns Their secrets (empty when none looks like a credential).
 */
export function envSecrets(env: Record<string, string> | undefined): Secrets {
  const secrets = createSecrets();
  for (const name in env ?? {}) if (isCredentialName(name)) secrets.add(env![name], true);
  return secrets;
}

/**
 * The sink a link of a transport holding `secrets` reports to: what it hands on is
 * redacted; what the sink only tells the link (`maxRetryAfter`) is passed on as it is.
 *
 * @param sink The client's sink.
 * @param secrets The transport's credentials.
 * @returns The guarded sink.
 */
export function guardSink(sink: TransportSink, secrets: Secrets): TransportSink {
  // What the link only reads (`maxRetryAfter`, and any member added later) passes as it is;
  // each report that can carry server text is redacted.
  const guarded: TransportSink = {
    ...sink,
    message: (message) => sink.message(secrets.value(message)),
    closed: (error) => sink.closed(secrets.error(error)),
  };
  if (sink.warn !== undefined) guarded.warn = (text) => sink.warn!(secrets.text(text));
  if (sink.skipped !== undefined) guarded.skipped = (line) => sink.skipped!(secrets.text(line));
  if (sink.malformed !== undefined) {
    guarded.malformed = (id, failure) =>
      sink.malformed!(id, { ...failure, detail: secrets.text(failure.detail) });
  }
  return guarded;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

function cleanProbe(result: HttpProbeResult, secrets: Secrets): HttpProbeResult {
  if (secrets.empty) return result;
  const out = { ...result };
  if (out.challenge !== undefined) out.challenge = secrets.text(out.challenge);
  const text = decoder.decode(out.body);
  const clean = secrets.text(text);
  if (clean !== text) out.body = encoder.encode(clean);
  return out;
}

/**
 * A link whose rejections and probe outcomes are redacted with `secrets`.
 *
 * @param link The link.
 * @param secrets The transport's credentials.
 * @returns The guarded link.
 */
export function guardLink(link: TransportLink, secrets: Secrets): TransportLink {
  const fail = (error: unknown): never => {
    throw secrets.error(error);
  };
  const guarded: TransportLink = {
    send: (message, options) => link.send(message, options).catch(fail),
    setProtocol: (protocol) => link.setProtocol(protocol),
    close: () => link.close(),
  };
  if (link.sessionId !== undefined) guarded.sessionId = () => link.sessionId!();
  const probe = link.probe;
  if (probe !== undefined) {
    guarded.probe = (request, options) =>
      probe.call(link, request, options).then((result) => cleanProbe(result, secrets), fail);
  }
  return guarded;
}

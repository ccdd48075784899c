/**
 * Private: where a transport applies its {@linkcode Secrets}. `recordingFetch` remembers
 * the credentials every outgoing request carries (credential headers, DPoP proofs, the
 * secret fields of token request forms), before the server can echo them; `guardSink` and
 * `guardLink` pass everything a link hands to the client (messages, warnings, the closing
 * error, rejections, probe outcomes) through the one redaction step.
 *
 * @module
 */

import type { FetchLike } from "./_http.ts";
import { createSecrets, type Secrets, secretsOf } from "./_secrets.ts";
import type { HttpProbeResult, TransportLink, TransportSink } from "./transport.ts";

/** Header names whose values are credentials. */
export const CREDENTIAL_HEADER =
  /^(authorization|proxy-authorization|dpop|cookie)$|api[-_]?key|token|secret|passw|credential/i;

/** Form fields of OAuth requests whose values are credentials. */
const CREDENTIAL_FIELDS = [
  "code",
  "code_verifier",
  "refresh_token",
  "access_token",
  "id_token",
  "client_secret",
  "client_assertion",
  "assertion",
  "subject_token",
  "actor_token",
  "device_code",
  "password",
];

/**
 * Remembers the credential in one header value: the credentials of an `Authorization`
 * (and, for `Basic`, the decoded secret), each cookie value, or the whole value.
 *
 * @param secrets Where to remember it.
 * @param name The header name.
 * @param value Its value.
 * @param pinned Whether it is configured (kept longer).
 */
export function recordHeader(secrets: Secrets, name: string, value: string, pinned = false): void {
  const lower = name.toLowerCase();
  if (lower === "authorization" || lower === "proxy-authorization") {
    const space = value.indexOf(" ");
    const credentials = space < 0 ? value : value.slice(space + 1).trim();
    secrets.add(credentials, pinned);
    if (/^basic$/i.test(value.slice(0, space))) {
      try {
        const pair = atob(credentials);
        const colon = pair.indexOf(":");
        secrets.add(pair, pinned);
        secrets.add(decodeURIComponent(pair.slice(colon + 1)), pinned);
      } catch {
        // not base64 (or not percent-encoded): the encoded form is remembered
      }
    }
    return;
  }
  if (lower === "cookie") {
    for (const part of value.split(";")) {
      secrets.add(part.slice(part.indexOf("=") + 1).trim(), pinned);
    }
    return;
  }
  secrets.add(value, pinned);
}

function recordHeaders(secrets: Secrets, headers: HeadersInit | undefined): boolean {
  let form = false;
  const each = (name: string, value: string) => {
    if (CREDENTIAL_HEADER.test(name)) recordHeader(secrets, name, value);
    if (/^content-type$/i.test(name) && value.includes("x-www-form-urlencoded")) form = true;
  };
  if (headers instanceof Headers) headers.forEach((value, name) => each(name, value));
  else if (Array.isArray(headers)) { for (const [name, value] of headers) each(name, value); }
  else if (headers !== undefined) {
    const record = headers as Record<string, string>;
    for (const name in record) each(name, record[name]);
  }
  return form;
}

/** Fields of authorization server answers (tokens, registrations) that are credentials. */
const ISSUED_FIELDS = [
  "access_token",
  "refresh_token",
  "id_token",
  "issued_token",
  "client_secret",
];

/** Remembers the credentials an authorization server answer hands out, before it is read. */
async function recordIssued(secrets: Secrets, response: Response): Promise<void> {
  if (!/json/i.test(response.headers.get("content-type") ?? "")) return;
  try {
    const body = JSON.parse(await response.clone().text());
    for (const field of ISSUED_FIELDS) {
      if (typeof body?.[field] === "string") secrets.add(body[field]);
    }
  } catch {
    // not JSON: nothing handed out
  }
}

/**
 * Wraps `next` so that the credentials of every request are remembered before it is sent,
 * and those an authorization server hands out (a token or registration answer: any POST
 * that is no JSON-RPC message) before the answer is read.
 *
 * @param next The `fetch` to send with.
 * @param secrets Where to remember them.
 * @returns The recording `fetch`.
 */
export function recordingFetch(next: FetchLike, secrets: Secrets): FetchLike {
  return async (input, init) => {
    const headers = init?.headers ?? (input instanceof Request ? input.headers : undefined);
    const form = recordHeaders(secrets, headers);
    const body = init?.body;
    const fields = body instanceof URLSearchParams
      ? body
      : typeof body === "string" && form
      ? new URLSearchParams(body)
      : undefined;
    for (const field of fields === undefined ? [] : CREDENTIAL_FIELDS) {
      for (const value of fields!.getAll(field)) secrets.add(value);
    }
    const response = await next(input, init);
    if (fields !== undefined || (typeof body === "string" && !body.startsWith('{"jsonrpc"'))) {
      await recordIssued(secrets, response);
    }
    return response;
  };
}

/** A transport's {@linkcode Secrets}, with what sets them up. */
export interface TransportSecrets extends Secrets {
  /** Remembers the configured bearer token of an `auth` value (other forms bring their own). */
  pin(auth: unknown): void;
  /** Includes the secrets a `fetch` holds (an OAuth middleware's, whose tokens it attaches). */
  includeFetch(fetch: unknown): void;
}

/**
 * The secrets of a Streamable HTTP transport: its credential headers, and those of a
 * `fetch` that holds its own.
 *
 * @param headers The static headers (names in lower case).
 * @param fetch The transport's `fetch` option.
 * @returns The secrets.
 */
export function transportSecrets(
  headers: Record<string, string>,
  fetch: unknown,
): TransportSecrets {
  const secrets = createSecrets() as TransportSecrets;
  for (const name in headers) {
    if (CREDENTIAL_HEADER.test(name)) recordHeader(secrets, name, headers[name], true);
  }
  secrets.pin = (auth) => {
    const bearer = (auth as { bearer?: unknown } | undefined)?.bearer;
    if (typeof bearer === "string") secrets.add(bearer, true);
  };
  secrets.includeFetch = (f) => {
    const own = secretsOf(f);
    if (own !== undefined) secrets.include(own);
  };
  secrets.includeFetch(fetch);
  return secrets;
}

/** Environment variable names whose values are credentials (`GITHUB_TOKEN`, `API_KEY`, …). */
const CREDENTIAL_ENV = /token|secret|key|passw|pwd|auth|cred|cookie/i;

/**
 * The credentials among the environment variables a server process is given.
 *
 * @param env The variables.
 * @returns Their secrets (empty when none looks like a credential).
 */
export function envSecrets(env: Record<string, string> | undefined): Secrets {
  const secrets = createSecrets();
  for (const name in env ?? {}) if (CREDENTIAL_ENV.test(name)) secrets.add(env![name], true);
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
  const guarded: TransportSink = {
    message: (message) => sink.message(secrets.value(message)),
    closed: (error) => sink.closed(secrets.error(error)),
  };
  if (sink.warn !== undefined) guarded.warn = (text) => sink.warn!(secrets.text(text));
  if (sink.malformed !== undefined) {
    guarded.malformed = (id, failure) =>
      sink.malformed!(id, { ...failure, detail: secrets.text(failure.detail) });
  }
  if (sink.maxRetryAfter !== undefined) guarded.maxRetryAfter = sink.maxRetryAfter;
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
  const probe = link.probe;
  if (probe !== undefined) {
    guarded.probe = (request, options) =>
      probe.call(link, request, options).then((result) => cleanProbe(result, secrets), fail);
  }
  return guarded;
}

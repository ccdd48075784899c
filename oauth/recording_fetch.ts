/**
 * The fetch wrapper that learns a client's credentials: every outgoing request's credential
 * headers, DPoP proofs and the secret fields of token request forms, and the tokens an
 * authorization server hands out, are remembered in a {@linkcode Secrets} set before a server
 * can echo them. Used by the OAuth middleware and by the HTTP transport.
 *
 * @module
 */

import { isCredentialName } from "../protocol/secrets.ts";
import { nameMemo } from "../protocol/name_memo.ts";
import type { FetchLike } from "../protocol/fetch_like.ts";
import type { Secrets } from "../protocol/secrets.ts";
import { recordHeader } from "./middleware_parts.ts";

export { recordHeader } from "./middleware_parts.ts";

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

const CREDENTIAL = 1;
const CONTENT_TYPE = 2;
/** What a header name is: `CREDENTIAL`, `CONTENT_TYPE` or 0 (names repeat each request). */
const kindOf = nameMemo((name) =>
  (isCredentialName(name) ? CREDENTIAL : 0) |
  (name.toLowerCase() === "content-type" ? CONTENT_TYPE : 0)
);

/** Records the credential headers; `true` when the body is a form. */
function recordHeaders(secrets: Secrets, headers: HeadersInit | undefined): boolean {
  let form = false;
  const each = (name: string, value: string) => {
    const kind = kindOf(name);
    if (kind === 0) return;
    if (kind & CREDENTIAL) recordHeader(secrets, name, value);
    if (kind & CONTENT_TYPE && value.includes("x-www-form-urlencoded")) form = true;
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

/**
 * Private: how a cassette is made independent of the run that recorded it: JSON-RPC ids and
 * progress tokens renumbered in order of appearance, the client's identity replaced,
 * timestamps fixed, and every credential redacted (the values given, the values of
 * credential-named keys, whatever their type, credential headers given as `[name, value]`
 * pairs or `{ name, value }` objects, bearer tokens in text). Which names are credentials is
 * the transports' own rule (`protocol/secrets.ts`); the names of a schema's
 * `properties` are argument names, not values, so a property called `apiKey` keeps its schema.
 *
 * @module
 */

import type { JsonObject, JsonRpcId, JsonRpcMessage } from "../protocol/jsonrpc.ts";
import { META_CLIENT_INFO, META_SUBSCRIPTION_ID } from "../protocol/meta.ts";
import { createSecrets, CREDENTIAL_NAME, REDACTED } from "../protocol/secrets.ts";
import { objectOr } from "./_core.ts";

/** The client identity a cassette holds. */
export const CLIENT_PLACEHOLDER = { name: "recorded-client", version: "0.0.0" };
/** The time every timestamp of a cassette holds. */
export const TIME_PLACEHOLDER = "2000-01-01T00:00:00.000Z";

const TIMESTAMP = /\b\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:?\d{2})\b/g;
const BEARER = /\b(Bearer|Basic|DPoP)\s+[A-Za-z0-9._~+/=-]{8,}/g;

/** How credentials are found. */
export interface RedactOptions {
  /** Secret values to redact wherever they occur (as is, percent-encoded or JSON-escaped). */
  redact?: readonly string[];
  /** Keys whose values are redacted (default: credential-like names). */
  redactKeys?: RegExp;
}

/**
 * A value with timestamps fixed and credentials redacted: the given values, and the values of
 * credential-named keys, which are then redacted wherever they occur later too.
 */
export function cleaner(
  options: RedactOptions,
  fixTimes = true,
): (value: unknown) => unknown {
  const secrets = createSecrets();
  for (const value of options.redact ?? []) secrets.add(value, true);
  const keys = options.redactKeys ?? CREDENTIAL_NAME;
  const isKey = (name: unknown) => typeof name === "string" && keys.test(name);
  /** A credential's value taken out, its strings remembered for wherever they show up later. */
  const hide = (value: unknown): string => {
    if (typeof value === "string") secrets.add(value, true);
    else if (Array.isArray(value)) value.forEach(hide);
    else if (objectOr(value)) Object.values(objectOr(value)!).forEach(hide);
    return REDACTED;
  };
  // `names`: the value sits in a map of argument names (a schema's `properties`).
  const walk = (value: unknown, key?: string, names = false): unknown => {
    if (value === undefined || value === null) return value;
    if (!names && key !== undefined && isKey(key)) return hide(value);
    if (typeof value === "string") {
      const text = secrets.text(value);
      return (fixTimes ? text.replace(TIMESTAMP, TIME_PLACEHOLDER) : text).replace(
        BEARER,
        `$1 ${REDACTED}`,
      );
    }
    if (Array.isArray(value)) {
      // A header as a `[name, value]` pair.
      if (value.length === 2 && isKey(value[0]) && typeof value[1] === "string") {
        return [walk(value[0]), hide(value[1])];
      }
      return value.map((item) => walk(item));
    }
    const object = objectOr(value);
    if (!object) return value;
    // A header as `{ name, value }`.
    const header = isKey(object.name) && typeof object.value === "string";
    const map = key === "properties" || key === "patternProperties";
    const out: JsonObject = {};
    for (const [k, v] of Object.entries(object)) {
      out[walk(k) as string] = header && k === "value" ? hide(v) : walk(v, k, map);
    }
    return out;
  };
  const top = (value: unknown): unknown => walk(value);
  return top;
}

/** The params a request is matched by: no `_meta`, the client identity replaced. */
export function matchParams(method: string, params: unknown): JsonObject {
  const copy: JsonObject = { ...objectOr(params) };
  delete copy._meta;
  if (method === "initialize" && copy.clientInfo !== undefined) {
    copy.clientInfo = CLIENT_PLACEHOLDER;
  }
  return copy;
}

/** Renumbers ids and tokens of one recording, in order of appearance. */
export interface Normalizer {
  /** A message the client sent. */
  send(message: JsonRpcMessage): JsonRpcMessage;
  /** A message the server sent. */
  recv(message: JsonRpcMessage): JsonRpcMessage;
}

const keyOf = (id: unknown) => JSON.stringify(id);

/** Messages as they went, only redacted: no ids, tokens, identity or times replaced. */
export function redactor(options: RedactOptions): Normalizer {
  const clean = cleaner(options, false);
  const same = (message: JsonRpcMessage) => clean(message) as JsonRpcMessage;
  return { send: same, recv: same };
}

/** A fresh normalizer. */
export function normalizer(options: RedactOptions): Normalizer {
  const clean = cleaner(options);
  const clientIds = new Map<string, JsonRpcId>();
  const serverIds = new Map<string, JsonRpcId>();
  const tokens = new Map<string, JsonRpcId>();
  const mapped = (map: Map<string, JsonRpcId>, id: unknown) => map.get(keyOf(id)) ?? id;

  const send = (message: JsonRpcMessage): JsonRpcMessage => {
    const out = structuredClone(message) as unknown as JsonObject;
    if ("method" in message) {
      if ("id" in message) {
        const id = clientIds.size + 1;
        clientIds.set(keyOf(message.id), id);
        out.id = id;
      }
      const params = objectOr(out.params);
      const meta = objectOr(params?._meta);
      if (params && meta) {
        if (META_CLIENT_INFO in meta) meta[META_CLIENT_INFO] = CLIENT_PLACEHOLDER;
        if (meta.progressToken !== undefined) {
          const token = `p${tokens.size + 1}`;
          tokens.set(keyOf(meta.progressToken), token);
          meta.progressToken = token;
        }
      }
      if (params && message.method === "initialize" && params.clientInfo !== undefined) {
        params.clientInfo = CLIENT_PLACEHOLDER;
      }
      if (params && message.method === "notifications/cancelled") {
        params.requestId = mapped(clientIds, params.requestId);
      }
    } else if ("id" in message) out.id = mapped(serverIds, message.id);
    return clean(out) as JsonRpcMessage;
  };

  const recv = (message: JsonRpcMessage): JsonRpcMessage => {
    const out = structuredClone(message) as unknown as JsonObject;
    if ("method" in message) {
      if ("id" in message) {
        const id = `s${serverIds.size + 1}`;
        serverIds.set(keyOf(message.id), id);
        out.id = id;
      }
      const params = objectOr(out.params);
      if (params?.progressToken !== undefined) {
        params.progressToken = mapped(tokens, params.progressToken);
      }
      const meta = objectOr(params?._meta);
      if (meta && META_SUBSCRIPTION_ID in meta) {
        meta[META_SUBSCRIPTION_ID] = mapped(clientIds, meta[META_SUBSCRIPTION_ID]);
      }
      if (params && message.method === "notifications/cancelled") {
        params.requestId = mapped(serverIds, params.requestId);
      }
    } else if ("id" in message && message.id !== null) {
      out.id = mapped(clientIds, message.id);
      const meta = objectOr(objectOr(out.result)?._meta);
      if (meta && META_SUBSCRIPTION_ID in meta) {
        meta[META_SUBSCRIPTION_ID] = mapped(clientIds, meta[META_SUBSCRIPTION_ID]);
      }
    }
    return clean(out) as JsonRpcMessage;
  };
  return { send, recv };
}

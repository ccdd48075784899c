/**
 * Private: a JSON-RPC answer's body past 1 MiB read as a message from its bytes, by the pieced
 * reader (`protocol/pieced_json.ts`): each long string is decoded piece by piece as it
 * arrives, so the body's text is never held whole beside its value (a body at the limit costs
 * its value and a chunk, not its text and its value). Shorter bodies are read as text.
 *
 * @module
 */

import type { DecodeResult } from "../protocol/jsonrpc.ts";
import type { PiecedReader } from "../protocol/pieced_json.ts";
import { loadLong, LONG_MESSAGE, longReader, releaseChunk } from "./_bytes.ts";
import {
  byobReader,
  declaredLength,
  decodeGathered,
  gather,
  LARGE_BODY,
  readBoundedText,
  tooLarge,
} from "./_http_body.ts";

const utf8 = new TextDecoder();

/** A long JSON body read as a message from its bytes (never decoded whole). */
export interface LongAnswer {
  /** The message, or why it was refused (a blank body is not JSON). */
  decoded: DecodeResult;
  /** The body's first bytes (up to 1 KiB), decoded, to name a refused one by. */
  head: string;
}

const NOT_JSON: DecodeResult = { ok: false, reason: "not_json", detail: "the text is not JSON" };

/** A long message read by `reader`, with its head to name it by when refused. */
export function answerOf(reader: PiecedReader): LongAnswer {
  return { decoded: reader.end() ?? NOT_JSON, head: utf8.decode(reader.head) };
}

/**
 * {@linkcode readBoundedText} for a JSON-RPC answer: a body past 1 MiB (declared, or grown to
 * it) is read as a message from its bytes, each long string decoded piece by piece as it
 * arrives, so the body's text is never held whole beside its value; a shorter one is its text.
 */
export function readBoundedAnswer(
  response: Response,
  limit: number,
): Promise<string | LongAnswer> {
  const declared = declaredLength(response);
  // The usual answer, of a declared length under 1 MiB, goes straight to its text (no async
  // frame of this function's around it).
  if (
    Number.isFinite(declared) &&
    (declared < LONG_MESSAGE || declared > limit || response.body === null)
  ) {
    return readBoundedText(response, limit, declared);
  }
  return readLongAnswer(response, limit, declared);
}

/** {@linkcode readBoundedAnswer} of a body of unknown length, or declared past 1 MiB. */
async function readLongAnswer(
  response: Response,
  limit: number,
  declared: number,
): Promise<string | LongAnswer> {
  if (Number.isFinite(declared) && response.body !== null) {
    await loadLong();
    const reader = longReader();
    if (reader === undefined) return readBoundedText(response, limit, declared);
    await readLong(response.body, reader, limit);
    return answerOf(reader);
  }
  const gathered = await gather(response, limit, true);
  if (gathered.long !== undefined) return answerOf(gathered.long);
  return decodeGathered(gathered);
}

/**
 * Reads a long body into `reader` within `limit`, chunk by chunk: through one reused buffer
 * where the body is a byte stream (Deno), else each chunk freed once read (Bun).
 */
async function readLong(
  body: ReadableStream<Uint8Array>,
  reader: PiecedReader,
  limit: number,
): Promise<void> {
  const byob = byobReader(body);
  const plain = byob === undefined ? body.getReader() : undefined;
  let buffer = new ArrayBuffer(LARGE_BODY);
  for (;;) {
    const { done, value } = byob !== undefined
      ? await byob.read(new Uint8Array(buffer))
      : await plain!.read();
    if (done || value === undefined) return;
    if (reader.length + value.byteLength > limit) {
      await (byob ?? plain!).cancel().catch(() => {});
      throw tooLarge(limit);
    }
    reader.push(value);
    if (byob !== undefined) buffer = value.buffer as ArrayBuffer;
    else releaseChunk(value);
  }
}

// Lines past 1 MiB read as messages from their bytes (the pieced reader, loaded on first
// need): the same message as a whole line gives, the limit as exact as ever, a refused line
// named by its first bytes; and over a real process pipe.
import type { DecodeResult } from "../../protocol/jsonrpc.ts";
import { decodeMessage } from "../../protocol/decode.ts";
import { lineSplitter } from "../../transports/_lines.ts";
import { loadLong, LONG_MESSAGE } from "../../transports/_bytes.ts";
import { stdio } from "../../transports/stdio.ts";
import type { TransportSink } from "../../transports/transport.ts";
import type { JsonRpcMessage } from "../../protocol/jsonrpc.ts";
import { assert, assertEquals, scriptCommand, test } from "../_harness.ts";
import { pieces } from "./_streams.ts";

const encoder = new TextEncoder();
const toy = scriptCommand(new URL("../fixtures/stdio_toy.ts", import.meta.url));

/** A message line of about `bytes` bytes, with escapes and non-ASCII text in its long string. */
function longLine(bytes: number): string {
  const unit = 'é\\n😀\\"x\\u00e9 plain text ';
  const text = unit.repeat(Math.ceil(bytes / unit.length));
  return `{"jsonrpc":"2.0","id":4,"result":{"content":[{"type":"text","text":"${text}"}]}}`;
}

function splitter(max: number) {
  const seen = {
    lines: [] as string[],
    messages: [] as { read: DecodeResult; head: string }[],
    oversized: [] as { bytes: number; head: string }[],
  };
  const split = lineSplitter({
    maxLineBytes: max,
    onLine: (line) => seen.lines.push(line),
    onMessage: (read, head) => seen.messages.push({ read, head: new TextDecoder().decode(head) }),
    onOversized: (bytes, head) =>
      seen.oversized.push({ bytes, head: new TextDecoder().decode(head) }),
  });
  return { split, seen };
}

test("long lines: a line past 1 MiB is read from its bytes into the same message", async () => {
  await loadLong();
  const line = longLine(3 * LONG_MESSAGE);
  const bytes = encoder.encode(line);
  for (const size of [4096, 65_536, 1_000_003]) {
    const { split, seen } = splitter(bytes.length);
    split.push(encoder.encode('{"jsonrpc":"2.0","id":1,"result":{}}\n'));
    for (const piece of pieces(bytes, size)) split.push(piece);
    split.push(encoder.encode("\r"));
    split.push(encoder.encode("\n  \n"));
    assertEquals(seen.lines, ['{"jsonrpc":"2.0","id":1,"result":{}}']);
    assertEquals(seen.messages.length, 1, `chunks of ${size}`);
    const { read, head } = seen.messages[0];
    assert(read.ok, "a message");
    const expected = decodeMessage(line);
    assert(expected.ok && JSON.stringify(read.message) === JSON.stringify(expected.message));
    assertEquals(head, new TextDecoder().decode(bytes.subarray(0, 1024)));
    assertEquals(seen.oversized, []);
    assertEquals(split.bufferedBytes, 0);
  }
});

test("long lines: the limit stays exact (a trailing \\r not counted), and a long line over it is skipped", async () => {
  await loadLong();
  const line = longLine(2 * LONG_MESSAGE);
  const bytes = encoder.encode(line);
  // One byte over: skipped as it arrives, reported with its length and first bytes.
  const over = splitter(bytes.length - 1);
  for (const piece of pieces(bytes, 65_536)) over.split.push(piece);
  over.split.push(encoder.encode("\r\n"));
  assertEquals(over.seen.messages, []);
  assertEquals(over.seen.oversized.length, 1);
  assertEquals(over.seen.oversized[0].bytes, bytes.length + 1);
  assertEquals(over.seen.oversized[0].head, new TextDecoder().decode(bytes.subarray(0, 1024)));
  // Over by its last byte only, once the line is already being read in pieces.
  const late = splitter(bytes.length - 1);
  for (const piece of pieces(bytes, 65_536)) late.split.push(piece);
  late.split.push(encoder.encode("\n"));
  assertEquals(late.seen.messages, []);
  assertEquals(late.seen.oversized.map((o) => o.bytes), [bytes.length]);
  // At the limit, its \r in a chunk of its own: read.
  const at = splitter(bytes.length);
  for (const piece of pieces(bytes, 65_536)) at.split.push(piece);
  at.split.push(encoder.encode("\r"));
  at.split.push(encoder.encode("\n"));
  assertEquals(at.seen.oversized, []);
  assertEquals(at.seen.messages.length, 1);
  assert(at.seen.messages[0].read.ok, "read at the limit");
  // A last line without a newline is still read.
  const last = splitter(bytes.length);
  for (const piece of pieces(bytes, 65_536)) last.split.push(piece);
  last.split.end();
  assertEquals(last.seen.messages.length, 1);
});

test("long lines: a long line that is not JSON is refused as the text would be; blanks are skipped", async () => {
  await loadLong();
  const bad = encoder.encode(longLine(2 * LONG_MESSAGE).replace("plain", "pl\tain"));
  const { split, seen } = splitter(4 * LONG_MESSAGE);
  for (const piece of pieces(bad, 65_536)) split.push(piece);
  split.push(encoder.encode("\n"));
  for (const piece of pieces(encoder.encode(" ".repeat(2 * LONG_MESSAGE)), 65_536)) {
    split.push(piece);
  }
  split.push(encoder.encode("\n"));
  assertEquals(seen.messages.length, 1);
  const { read } = seen.messages[0];
  assert(!read.ok, "refused");
  assertEquals(read.reason, "not_json");
  assertEquals(seen.lines, []);
  // Without onMessage, a long line still reaches onLine whole.
  const lines: string[] = [];
  const plain = lineSplitter({
    maxLineBytes: 4 * LONG_MESSAGE,
    onLine: (line) => lines.push(line),
    onOversized: () => {},
  });
  const good = longLine(2 * LONG_MESSAGE);
  for (const piece of pieces(encoder.encode(good), 65_536)) plain.push(piece);
  plain.push(encoder.encode("\n"));
  assertEquals(lines.length, 1);
  assert(lines[0] === good, "the long line whole");
});

test(
  "long lines: over a real pipe, a 3 MiB message at maxMessageBytes arrives; one byte more is skipped",
  async () => {
    const messages: JsonRpcMessage[] = [];
    const warnings: string[] = [];
    const sink: TransportSink = {
      message: (message) => void messages.push(message),
      closed: () => {},
      warn: (text) => void warnings.push(text),
    };
    const limit = 3 * LONG_MESSAGE;
    const link = await stdio({ ...toy, maxMessageBytes: limit }).open(sink);
    try {
      const waitFor = async (n: number) => {
        const end = Date.now() + 30_000;
        while (messages.length < n) {
          if (Date.now() > end) {
            throw new Error(`waited for ${n} messages, have ${messages.length}`);
          }
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
      };
      // `big` sends a notification line of `bytes` bytes (its newline not counted), then answers.
      for (let i = 0; i < 2; i++) {
        await link.send({ jsonrpc: "2.0", id: 10 + i, method: "big", params: { bytes: limit } });
        await waitFor(2 * (i + 1));
        const big = messages[2 * i] as unknown as { method: string; params: { pad: string } };
        assertEquals(big.method, "big");
        assertEquals(JSON.stringify(big).length, limit);
        assert(/^x+$/.test(big.params.pad), "the pad intact");
      }
      await link.send({ jsonrpc: "2.0", id: 20, method: "big", params: { bytes: limit + 1 } });
      await waitFor(5);
      assertEquals(messages.length, 5, "only the answer");
      assert(warnings.some((w) => w.includes(`a ${limit + 1}-byte message, over maxMessageBytes`)));
    } finally {
      await link.close();
    }
  },
  { timeout: 60_000 },
);

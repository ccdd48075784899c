import { leadingResponseId, lineSplitter } from "../../transports/_lines.ts";
import { byteRing } from "../../transports/_bytes.ts";
import { assert, assertEquals, test } from "../_harness.ts";

const bytes = (text: string) => new TextEncoder().encode(text);

function split(chunks: (string | Uint8Array)[], maxLineBytes = 16) {
  const lines: string[] = [];
  const oversized: number[] = [];
  const splitter = lineSplitter({
    maxLineBytes,
    onLine: (line) => lines.push(line),
    onOversized: (n) => oversized.push(n),
  });
  for (const chunk of chunks) splitter.push(typeof chunk === "string" ? bytes(chunk) : chunk);
  splitter.end();
  return { lines, oversized };
}

test("lines: split on \\n, drop \\r and blank lines, join chunks", () => {
  const cases: [string, (string | Uint8Array)[], string[]][] = [
    ["one line", ["abc\n"], ["abc"]],
    ["two in one chunk", ["a\nb\n"], ["a", "b"]],
    ["across chunks", ["ab", "c\nd", "e\n"], ["abc", "de"]],
    ["crlf", ["a\r\nb\r", "\n"], ["a", "b"]],
    ["blank and whitespace lines", ["\n\r\n  \n\t\na\n\n"], ["a"]],
    ["last line without newline", ["a\nb"], ["a", "b"]],
    ["lone \\r inside is kept", ["a\rb\n"], ["a\rb"]],
  ];
  for (const [name, chunks, expected] of cases) {
    assertEquals(split(chunks).lines, expected, name);
  }
});

test("lines: a character split across chunks decodes whole", () => {
  const euro = bytes("€\n"); // 3 bytes + newline
  assertEquals(split([euro.subarray(0, 1), euro.subarray(1, 2), euro.subarray(2)]).lines, ["€"]);
});

test("lines: invalid UTF-8 becomes U+FFFD instead of failing", () => {
  assertEquals(split([new Uint8Array([0x61, 0xff, 0x0a])]).lines, ["a\uFFFD"]);
});

test("lines: the limit is on the line without its ending", () => {
  const exact = "x".repeat(16);
  assertEquals(split([exact + "\r\n", exact + "\n"]).lines, [exact, exact]);
  const over = split([exact + "y\n", "ok\n"]);
  assertEquals(over.lines, ["ok"]);
  assertEquals(over.oversized, [17]);
  const overCrlf = split([exact + "y\r\n"]);
  assertEquals(overCrlf.oversized, [18]);
});

test("lines: an oversized line is dropped as it arrives, never held", () => {
  const lines: string[] = [];
  const oversized: number[] = [];
  const max = 1024;
  const splitter = lineSplitter({
    maxLineBytes: max,
    onLine: (line) => lines.push(line),
    onOversized: (n) => oversized.push(n),
  });
  const chunk = new Uint8Array(300).fill(0x78);
  let peak = 0;
  for (let i = 0; i < 10_000; i++) { // 3 MB in one line
    splitter.push(chunk);
    peak = Math.max(peak, splitter.bufferedBytes);
  }
  splitter.push(bytes("tail\nnext\n"));
  assert(peak <= max + 1, `held ${peak} bytes`);
  assertEquals(splitter.bufferedBytes, 0);
  assertEquals(oversized, [3_000_004]);
  assertEquals(lines, ["next"]);
});

test("lines: an oversized line cut by end of input is still reported", () => {
  const result = split(["x".repeat(40)]);
  assertEquals(result.oversized, [40]);
  assertEquals(result.lines, []);
});

test("ring: keeps the last bytes across wrap-arounds", () => {
  const ring = byteRing(8);
  assertEquals(ring.text(), "");
  ring.write(bytes("abc"));
  assertEquals(ring.text(), "abc");
  ring.write(bytes("defgh"));
  assertEquals([ring.text(), ring.size], ["abcdefgh", 8]);
  ring.write(bytes("ij"));
  assertEquals(ring.text(), "cdefghij");
  ring.write(bytes("klmnopqrstuvwxyz"));
  assertEquals(ring.text(), "stuvwxyz");
  for (const c of "12345") ring.write(bytes(c));
  assertEquals(ring.text(), "xyz12345");
});

test("ring: a character cut at the start is dropped, zero capacity keeps nothing", () => {
  const ring = byteRing(4);
  ring.write(bytes("a€b")); // 61 e2 82 ac 62: keeps e2 82 ac 62
  assertEquals(ring.text(), "€b");
  ring.write(bytes("é")); // 2 bytes: ac 62 c3 a9
  assertEquals(ring.text(), "bé");
  const none = byteRing(0);
  none.write(bytes("abc"));
  assertEquals([none.text(), none.size], ["", 0]);
});

test("lines: an oversized line hands over its first bytes, however it was cut", () => {
  const line = `{"id":3,"result":"${"y".repeat(3000)}"}`;
  for (const size of [1, 7, 500, 1024, 5000]) {
    const heads: string[] = [];
    const splitter = lineSplitter({
      maxLineBytes: 100,
      onLine: () => {},
      onOversized: (_, head) => heads.push(new TextDecoder().decode(head)),
    });
    const all = bytes(line + "\n");
    for (let at = 0; at < all.length; at += size) splitter.push(all.subarray(at, at + size));
    assertEquals(heads, [line.slice(0, 1024)], `pieces of ${size}`);
  }
});

test("line id: a response's id is read from its head only when it is certain", () => {
  const cases: [string, string | number | undefined][] = [
    ['{"jsonrpc":"2.0","id":7,"result":{"content":[', 7],
    [' { "id" : "a\\"b" , "jsonrpc" : "2.0" , "error" : {', 'a"b'],
    ['{"jsonrpc":"2.0","id":-12.5e1,"result":', -125],
    ['{"jsonrpc":"2.0","x":null,"y":true,"id":1,"result":', 1],
    ['{"result":{},"id":7}', undefined], // nested value first
    ['{"jsonrpc":"2.0","id":7,"method":"ping","params":{', undefined], // a server request
    ['{"id":7,"id":8,"result":', undefined], // repeated id
    ['{"meta":{"id":1},"id":2,"result":', undefined],
    ['{"jsonrpc":"2.0","id":12', undefined], // cut inside the id
    ['{"jsonrpc":"2.0","id":7', undefined],
    ['{"jsonrpc":"2.0","id":"ab', undefined],
    ['{"jsonrpc":"2.0","id":7,"resu', undefined],
    ['[{"id":1,"result":', undefined],
    ['{"id":truex,"result":', undefined],
    ['{"id":null,"result":', undefined],
    ["not json", undefined],
  ];
  for (const [head, id] of cases) assertEquals(leadingResponseId(head), id, head);
});

test("lines: many lines in one chunk split as one line at a time would, however cut", () => {
  const bom = [0xef, 0xbb, 0xbf];
  const input = new Uint8Array([
    ...bytes('{"a":1}\r\n\n  \t\r\n{"b":"é"}\n'),
    ...bom,
    ...bytes('{"c":3}\n'),
    0xe2, // a character cut short at a line's end
    ...bytes("\r\nx\n"),
    ...bom,
    ...bytes("\n0123456789abcdef\n" + "0123456789abcdef".repeat(2) + "g\nlast"),
  ]);
  // One line at a time, as the splitter decodes a line it held.
  const expected: string[] = [];
  const oversized: number[] = [];
  let from = 0;
  for (let at = 0; at <= input.length; at++) {
    if (at < input.length && input[at] !== 0x0a) continue;
    let end = at;
    if (end > from && input[end - 1] === 0x0d) end--;
    if (end - from > 32) oversized.push(at - from);
    else {
      const line = new TextDecoder().decode(input.subarray(from, end));
      if (line.trim() !== "") expected.push(line);
    }
    from = at + 1;
  }
  assertEquals(expected.length, 7);
  assert(expected.includes("x") && expected.includes('{"c":3}') && expected.includes("\ufffd"));
  assertEquals(oversized, [33]);
  for (const size of [1, 3, 7, 16, 17, 30, 40, input.length]) {
    const chunks: Uint8Array[] = [];
    for (let i = 0; i < input.length; i += size) chunks.push(input.slice(i, i + size));
    assertEquals(split(chunks, 32), { lines: expected, oversized }, `chunks of ${size}`);
  }
});

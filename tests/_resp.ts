// A tiny Redis client for tests (RESP2 over node:net): one connection, commands pipelined
// in order, replies parsed as strings, integers, arrays and null. Test code only: the
// library takes a `command` function and needs no Redis client.
import { Buffer } from "node:buffer";
import { connect, type Socket } from "node:net";

/** A connection to Redis: `command(args)` sends one command; `close()` ends it. */
export interface RespClient {
  command(args: string[]): Promise<unknown>;
  close(): Promise<void>;
}

type Reply = string | number | null | Reply[] | Error;

/** Parses one reply at `at`; returns it and the next offset, or `undefined` when incomplete. */
function parse(buffer: Buffer, at: number): [Reply, number] | undefined {
  const end = buffer.indexOf("\r\n", at);
  if (end === -1) return undefined;
  const type = String.fromCharCode(buffer[at]);
  const line = buffer.toString("utf8", at + 1, end);
  const next = end + 2;
  switch (type) {
    case "+":
      return [line, next];
    case "-":
      return [new Error(line), next];
    case ":":
      return [Number(line), next];
    case "$": {
      const length = Number(line);
      if (length === -1) return [null, next];
      if (buffer.length < next + length + 2) return undefined;
      return [buffer.toString("utf8", next, next + length), next + length + 2];
    }
    case "*": {
      const count = Number(line);
      if (count === -1) return [null, next];
      const items: Reply[] = [];
      let offset = next;
      for (let i = 0; i < count; i++) {
        const item = parse(buffer, offset);
        if (item === undefined) return undefined;
        items.push(item[0]);
        offset = item[1];
      }
      return [items, offset];
    }
  }
  throw new Error(`unexpected RESP type ${type}`);
}

function encode(args: string[]): Buffer {
  const parts = [`*${args.length}\r\n`];
  for (const arg of args) parts.push(`$${Buffer.byteLength(arg)}\r\n${arg}\r\n`);
  return Buffer.from(parts.join(""));
}

/** Connects to Redis at 127.0.0.1:`port`. */
export function respClient(port: number): Promise<RespClient> {
  return new Promise((resolve, reject) => {
    const socket: Socket = connect({ host: "127.0.0.1", port });
    socket.setNoDelay(true);
    const waiting: { resolve(value: unknown): void; reject(error: Error): void }[] = [];
    let buffer = Buffer.alloc(0);
    socket.on("data", (chunk: Buffer) => {
      buffer = Buffer.concat([buffer, chunk]);
      for (;;) {
        const parsed = parse(buffer, 0);
        if (parsed === undefined) break;
        buffer = buffer.subarray(parsed[1]);
        const pending = waiting.shift();
        if (parsed[0] instanceof Error) pending?.reject(parsed[0]);
        else pending?.resolve(parsed[0]);
      }
    });
    const fail = (error: Error) => {
      for (const pending of waiting.splice(0)) pending.reject(error);
    };
    socket.on("error", (error) => {
      fail(error);
      reject(error);
    });
    socket.on("close", () => fail(new Error("the Redis connection closed")));
    socket.once("connect", () =>
      resolve({
        command(args) {
          return new Promise((ok, ko) => {
            if (socket.destroyed) return ko(new Error("the Redis connection closed"));
            waiting.push({ resolve: ok, reject: ko });
            socket.write(encode(args));
          });
        },
        close: () =>
          new Promise((done) => {
            if (socket.destroyed) return done();
            socket.once("close", () => done());
            socket.end();
          }),
      }));
  });
}

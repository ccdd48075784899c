// Run as a process (the test runner may not hold the socket's permission): connects to the
// kept session's socket given as the first argument, sends hostile lines and then a good
// one, and prints the replies as one JSON array.
import process from "node:process";
import { connectUnix } from "../../runtime/unix_socket.ts";

const lines = [
  "not json at all",
  "[1,2]",
  "x".repeat(2 * 1024 * 1024),
  JSON.stringify({ id: 1, op: "explode" }),
  JSON.stringify({ id: 2, op: "call", method: "close", params: [] }),
  JSON.stringify({ id: 3, op: "call", method: "constructor", params: [] }),
  JSON.stringify({ op: "hello" }),
  JSON.stringify({ id: 4, op: "hello" }),
];

const connection = await connectUnix(process.argv[2]);
const replies = await new Promise<unknown[]>((resolve) => {
  let buffer = "";
  const decoder = new TextDecoder();
  const got: unknown[] = [];
  connection.onData((chunk) => {
    buffer += decoder.decode(chunk);
    let end: number;
    while ((end = buffer.indexOf("\n")) >= 0 && got.length < lines.length) {
      got.push(JSON.parse(buffer.slice(0, end)));
      buffer = buffer.slice(end + 1);
    }
    if (got.length === lines.length) resolve(got);
  });
  void connection.write(lines.join("\n") + "\n");
});
connection.close();
process.stdout.write(JSON.stringify(replies) + "\n");

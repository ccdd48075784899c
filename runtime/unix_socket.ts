/**
 * Unix domain sockets for a local, owner-only channel between two processes of this
 * package (the CLI's kept sessions): listen on a path, connect to one. One code path for
 * Deno and Bun, through `node:net`, which both implement over their own sockets.
 *
 * A socket file is made with the process's umask; {@linkcode listenUnix} narrows it to
 * `0600` before it resolves, and whoever places it should keep its folder `0700` so nobody
 * else can reach it even in between.
 *
 * @module
 */

import { chmod, rm } from "node:fs/promises";
import { connect, createServer, type Server, type Socket } from "node:net";

/** One connection over a Unix socket, as bytes. */
export interface UnixConnection {
  /** Called with each chunk that arrives. */
  onData(listener: (chunk: Uint8Array) => void): void;
  /** Called once when the connection ends (either side, or an error). */
  onClose(listener: () => void): void;
  /** Writes bytes; resolves once they are handed to the system (or the connection is gone). */
  write(chunk: Uint8Array | string): Promise<void>;
  /** Ends the connection. */
  close(): void;
}

/** A listening Unix socket from {@linkcode listenUnix}. */
export interface UnixListener {
  /** The socket file's path. */
  readonly path: string;
  /** Stops listening and ends open connections; the socket file is removed. */
  close(): Promise<void>;
}

function wrap(socket: Socket): UnixConnection {
  const closeListeners: (() => void)[] = [];
  let closed = false;
  const ended = () => {
    if (closed) return;
    closed = true;
    for (const listener of closeListeners) listener();
  };
  socket.on("close", ended);
  socket.on("error", () => {
    ended();
    socket.destroy();
  });
  return {
    onData(listener) {
      socket.on("data", (chunk: Uint8Array | string) => {
        listener(typeof chunk === "string" ? new TextEncoder().encode(chunk) : chunk);
      });
    },
    onClose(listener) {
      if (closed) listener();
      else closeListeners.push(listener);
    },
    write(chunk) {
      if (closed) return Promise.resolve();
      return new Promise((resolve) => {
        socket.write(chunk, () => resolve());
      });
    },
    close() {
      socket.end();
      socket.destroy();
      ended();
    },
  };
}

/**
 * Listens on a Unix socket at `path` (which must not exist) and hands each connection to
 * `onConnection`. The socket file is made owner-only (`0600`) before this resolves.
 *
 * @param path The socket file to make.
 * @param onConnection Called with each new connection.
 * @returns The listener, once it listens.
 * @throws The system's error (`EADDRINUSE` when the path exists, `EACCES`…).
 *
 * @example Echo (Deno needs `--allow-net=unix:<path>` for a Unix socket)
 * ```ts ignore
 * import { connectUnix, listenUnix } from "./unix_socket.ts";
 *
 * const path = `${await Deno.makeTempDir()}/echo.sock`;
 * const listener = await listenUnix(path, (conn) => conn.onData((chunk) => conn.write(chunk)));
 * const conn = await connectUnix(path);
 * const echoed = new Promise<string>((resolve) =>
 *   conn.onData((chunk) => resolve(new TextDecoder().decode(chunk)))
 * );
 * await conn.write("hi");
 * if ((await echoed) !== "hi") throw new Error("unexpected");
 * conn.close();
 * await listener.close();
 * ```
 */
export function listenUnix(
  path: string,
  onConnection: (connection: UnixConnection) => void,
): Promise<UnixListener> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    onConnection(wrap(socket));
  });
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(path, async () => {
      server.off("error", reject);
      try {
        await chmod(path, 0o600);
      } catch (error) {
        server.close();
        return reject(error);
      }
      let closing: Promise<void> | undefined;
      resolve({
        path,
        close() {
          closing ??= new Promise<void>((done) => {
            for (const socket of sockets) socket.destroy();
            server.close(() => void rm(path, { force: true }).then(done, done));
          });
          return closing;
        },
      });
    });
  });
}

/**
 * Connects to the Unix socket at `path`.
 *
 * @param path The socket file.
 * @returns The connection, once it is open.
 * @throws The system's error: `code` `ENOENT` when there is no socket, `ECONNREFUSED` when
 * nothing listens on it any more (a socket file left by a process that ended).
 *
 * @example
 * ```ts ignore
 * import { connectUnix } from "./unix_socket.ts";
 *
 * const missing = await connectUnix(`${await Deno.makeTempDir()}/none.sock`).catch((e) => e);
 * if (missing.code !== "ENOENT") throw new Error("unexpected");
 * ```
 */
export function connectUnix(path: string): Promise<UnixConnection> {
  return new Promise((resolve, reject) => {
    const socket = connect(path);
    const fail = (error: Error) => reject(error);
    socket.once("error", fail);
    socket.once("connect", () => {
      socket.off("error", fail);
      resolve(wrap(socket));
    });
  });
}

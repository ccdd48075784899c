// Preloaded with `node --import` into servers that bind every interface (server-everything
// in streamableHttp mode): every TCP listen goes to 127.0.0.1, and once it listens the
// server's port is printed on stderr as `LISTENING <port> <address>` (start it with PORT=0).
import net from "node:net";

const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function (...args) {
  const [first] = args;
  if (first !== null && typeof first === "object" && !Array.isArray(first)) {
    if (first.path === undefined) args[0] = { ...first, host: "127.0.0.1" };
  } else if (typeof first === "number" || (typeof first === "string" && /^\d+$/.test(first))) {
    if (typeof args[1] === "string") args[1] = "127.0.0.1";
    else args.splice(1, 0, "127.0.0.1");
  }
  this.once("listening", () => {
    const address = this.address();
    if (address !== null && typeof address === "object") {
      process.stderr.write(`LISTENING ${address.port} ${address.address}\n`);
    }
  });
  return listen.apply(this, args);
};

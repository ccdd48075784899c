// Preloaded with `node --import` into servers that bind every interface (such as
// server-everything in streamableHttp mode): forces each TCP listen onto 127.0.0.1 and
// prints `LISTENING <port>` on stderr once it listens (start it with PORT=0 for a free port).
import net from "node:net";

const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function (...args) {
  if (args[0] !== null && typeof args[0] === "object" && !Array.isArray(args[0])) {
    if (args[0].path === undefined) args[0] = { ...args[0], host: "127.0.0.1" };
  } else if (
    typeof args[0] === "number" || (typeof args[0] === "string" && /^\d+$/.test(args[0]))
  ) {
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

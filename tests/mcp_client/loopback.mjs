// Preloaded (`node --import ./loopback.mjs server.js`) into a Node server that listens
// on every interface: its listening sockets bind 127.0.0.1 instead, so a test server is
// never reachable from outside the machine.
import net from "node:net";

const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function (...args) {
  const [first] = args;
  if (typeof first === "number" || (typeof first === "string" && /^\d+$/.test(first))) {
    // listen(port[, host][, backlog][, callback])
    const rest = args.slice(1);
    if (typeof rest[0] === "string") rest.shift();
    return listen.call(this, first, "127.0.0.1", ...rest);
  }
  if (first && typeof first === "object" && first.path === undefined) {
    args[0] = { ...first, host: "127.0.0.1" };
  }
  return listen.apply(this, args);
};

// The answer to a plain HTTP request (no websocket upgrade) on either control listener:
// the unix socket (server.js) and the TCP one (remote-listener.js).
export function refuseHttp(req, res) {
  res.writeHead(426, { 'content-type': 'text/plain' }).end('superd control channel: websocket only\n');
}

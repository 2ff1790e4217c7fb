// Refusals on either control listener, the unix socket (server.js) and the TCP one
// (remote-listener.js): a plain HTTP request (no websocket upgrade), and an upgrade refused.
import http from 'node:http';

/** A plain HTTP request, not a websocket upgrade: 426. */
export function refuseHttp(req, res) {
  res.writeHead(426, { 'content-type': 'text/plain' }).end('superd control channel: websocket only\n');
}

/** Answers a refused upgrade request with a plain HTTP response and closes. */
export function refuse(socket, { status, text, headers = {} }) {
  const extra = Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`).join('');
  socket.end(`HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\nconnection: close\r\ncontent-type: text/plain\r\n`
    + `content-length: ${Buffer.byteLength(text) + 1}\r\n${extra}\r\n${text}\n`);
}

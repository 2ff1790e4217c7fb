// Helpers of the remote-control tests: raw upgrade requests (to see the HTTP status a
// refused client gets before any websocket frame) and the daemon's TCP listening sockets.
import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import crypto from 'node:crypto';
import { fdTargets } from '../helpers/proc-fds.js';

/**
 * Sends one websocket upgrade request; resolves {status, headers} (101 when let in, the
 * socket is then closed at once).
 * @param {number} port
 * @param {{token?: string, origin?: string, localAddress?: string, ca?: Buffer, host?: string}} [o]
 */
export function upgrade(port, { token, origin, localAddress, ca, host = '127.0.0.1' } = {}) {
  const headers = { connection: 'Upgrade', upgrade: 'websocket', 'sec-websocket-version': '13', 'sec-websocket-key': crypto.randomBytes(16).toString('base64') };
  if (token !== undefined) headers.authorization = `Bearer ${token}`;
  if (origin !== undefined) headers.origin = origin;
  const mod = ca ? https : http;
  return new Promise((resolve, reject) => {
    const req = mod.request({ host, port, path: '/', headers, localAddress, agent: false, ca, timeout: 10000 });
    req.on('upgrade', (res, socket) => {
      socket.destroy();
      resolve({ status: res.statusCode, headers: res.headers });
    });
    req.on('response', (res) => {
      res.resume();
      resolve({ status: res.statusCode, headers: res.headers });
    });
    req.on('timeout', () => req.destroy(new Error('upgrade request timed out')));
    req.on('error', reject);
    req.end();
  });
}

/** Local ports `pid` listens on over TCP (from /proc: its socket inodes in LISTEN state). */
export function tcpListenPorts(pid) {
  const inodes = new Set();
  for (const { target } of fdTargets(pid)) {
    const m = /^socket:\[(\d+)\]$/.exec(target);
    if (m) inodes.add(m[1]);
  }
  const ports = [];
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text = '';
    try {
      text = fs.readFileSync(table, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const f = line.trim().split(/\s+/);
      if (f.length < 10 || f[3] !== '0A') continue; // 0A = LISTEN
      if (inodes.has(f[9])) ports.push(parseInt(f[1].split(':')[1], 16));
    }
  }
  return ports;
}

// `scheduling: reuseport`: each cluster worker gets a listening socket of its own on the
// app's port, bound with SO_REUSEPORT, and the kernel spreads new connections over them (by
// a hash of each connection's addresses and ports). The daemon then accepts nothing and
// hands nothing over: a connection goes from the kernel to a worker, as under `os`, but
// each worker has its own accept queue (no shared socket, no thundering herd).
//
// How a worker's listen(port) gets one: the worker's query comes to the daemon as every
// cluster listen does ('queryServer': worker-hooks.js), so the listen guards judge it first
// (listen-guard.js: the uid's ports; port-owners.js: one app per port) and refuse it with
// the daemon's reason. A query they let through is answered here, in cluster's place, as
// Node answers one under `os` (primary.js queryServer with a SharedHandle): {errno: 0, key,
// ack} and a handle, a socket the daemon bound with net._createServerHandle and the flag
// UV_TCP_REUSEPORT (what net.Server's listen({reusePort}) passes, Node 22.12+ and 23.1+).
// The worker's cluster child takes it as a shared handle and listens on it; the daemon closes
// its own copy once the handle is sent (a copy left open would never accept: the kernel would
// queue that copy's share of connections for nobody). The key is ours, unique per listen:
// the child sends it back in {act: 'close'}, which cluster's primary ignores (no such
// handle) and the watches read.
//
// Not for: port 0 (each worker would get another port), unix paths, UDP, an fd, and an
// address:port served from an inherited socket (`super upgrade` from a daemon that held it:
// the inherited socket goes on serving through cluster, until the next fresh start).
//
// Why a daemon-bound socket and not the worker's own listen({reusePort}): the guards run
// before any bind, in the daemon, whatever the app's code does (a worker binding by itself
// is judged by nobody, and a second app could join the port's group and take its share).
import net from 'node:net';
import { takeQuery, queryAnswer } from './query-answer.js';

// libuv's uv_tcp_flags (uv.h, libuv 1.49+): Node's net.js passes it for listen({reusePort}).
// shape-check.js checks it at boot against Node's own constant.
export const UV_TCP_REUSEPORT = 2;

/**
 * Answers listen query `msg` of `proc` with a SO_REUSEPORT socket of the worker's own, or
 * returns false when this query is not one for it (the caller lets cluster serve it).
 * @param {import('node:child_process').ChildProcess} proc
 * @param {{seq: number, act: string, address: unknown, port: unknown, addressType: unknown, fd: unknown, flags?: unknown}} msg
 * @param {number} workerId
 * @returns {boolean}
 */
export function answerWithReusePort(proc, msg, workerId) {
  if (msg.fd !== undefined || (msg.addressType !== 4 && msg.addressType !== 6)) return false;
  if (!Number.isInteger(msg.port) || Number(msg.port) <= 0) return false;
  if (msg.address != null && typeof msg.address !== 'string') return false;
  const flags = (Number.isInteger(msg.flags) ? Number(msg.flags) : 0) | UV_TCP_REUSEPORT;
  takeQuery(msg);
  // @ts-expect-error net._createServerHandle is Node's internal (cluster's SharedHandle uses it); returns a handle or an errno
  const handle = net._createServerHandle(msg.address ?? null, msg.port, msg.addressType, undefined, flags);
  const key = `superd-reuseport:${msg.address ?? ''}:${msg.port}:${msg.addressType}:${workerId}:${msg.seq}`;
  try {
    if (typeof handle === 'number') proc.send(queryAnswer(msg.seq, handle));
    else proc.send(queryAnswer(msg.seq, 0, key), handle, {}, () => handle.close());
  } catch {
    if (typeof handle !== 'number') handle.close(); // the channel closed: nobody waits for it
  }
  return true;
}

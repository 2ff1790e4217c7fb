// Sticky sessions (an app's `sticky:`, docs/realtime.md): which worker a new connection of
// the app goes to. Part of the seam (index.js lists what it relies on): worker-hooks.js
// calls route() where Node's round-robin sends a connection to a worker ('newconn'), and
// the connection goes to the chosen worker instead, in the same message; the worker's
// answer reaches Node's callback all the same (Node looks an answer up by its seq, whoever
// sends it), so Node's own flow (one connection in flight per worker, a refused one handed
// to another) is kept.
//
// - by ip: rendezvous (highest random weight) hashing of the client's address over the
//   app's workers serving the port, each known by its slot: a worker that goes moves only
//   the clients it had, and the worker that replaces it in its slot takes them back. A
//   decision per connection, nothing read.
// - by sid / cookie: the first request's head is read here (at most HEAD_MAX bytes within
//   HEAD_DEADLINE_MS; else by address), the session id taken from the URL's `sid=` or the
//   cookie, and looked up in the sessions the workers' agents announced (an engine.io
//   handshake's answer names its sid: lib/worker/sticky.cjs). A request without one (a
//   handshake) goes where Node's round-robin sends it. The bytes read go to the worker
//   first (TO_AGENT.STICKY_PREFIX), whose agent puts them back in front of the socket.
// A head is read off the workers' turns: Node's handoff of the connection is ended at once
// (release(): the worker is free for the next connection) and the connection, once its head
// is read (or HEAD_DEADLINE_MS has passed: a client that sends nothing goes by its address,
// and the app's server times it out as it would without sticky), is handed back to its
// listener (round-robin-listeners.js handBack), where Node hands it out as a new one and
// route() sends it on. So a silent client delays no other. Without the listener's stamp, or
// past MAX_OFF_TURN heads read at once (a flood of silent connections: the daemon's memory),
// Node's turn waits for the read, as before: a bound of one more read per worker.
import net from 'node:net';
import cluster from 'node:cluster';
import { TO_AGENT } from '../../../ipc/agent-protocol.js';
import { tellAgent } from '../agent-channel.js';
import { servingWorkers } from './handoff-guard.js';
import { canHandBack, handBack } from './round-robin-listeners.js';

const HEAD_MAX = 8192;
const HEAD_DEADLINE_MS = 1000;
const SID_WAIT_MS = 500; // an engine.io sid seen before its worker's announcement arrived (a busy host)
const MAX_SESSIONS = 100_000; // per app; the oldest go first
const SID = /^[\w-]{1,64}$/;
const MAX_OFF_TURN = 1024; // heads read at once off the workers' turns; past it a read holds its worker's turn (so at most one per worker more)
let offTurn = 0;

/** worker id -> {app, slot} for the workers of sticky apps */
const members = new Map();
/** app name -> its sessions: sid -> worker id, and who waits for a sid not announced yet */
const apps = new Map();

const appState = (name) => {
  let s = apps.get(name);
  if (!s) apps.set(name, (s = { sessions: new Map(), waiting: new Map(), turn: 0 }));
  return s;
};

/** A worker of a sticky app was forked (its slot identifies it in the hashing). */
export function stickyMember(worker, app, slot) {
  members.set(worker.id, { app, slot });
  worker.process.once('exit', () => {
    members.delete(worker.id);
    const s = apps.get(app);
    if (!s) return;
    for (const [sid, id] of s.sessions) if (id === worker.id) s.sessions.delete(sid);
  });
}

/** A worker's agent announced an engine.io session it created (guarded: a short token). */
export function stickySession(worker, sid) {
  const m = members.get(worker.id);
  if (!m || typeof sid !== 'string' || !SID.test(sid)) return;
  const s = appState(m.app);
  s.sessions.delete(sid);
  s.sessions.set(sid, worker.id);
  if (s.sessions.size > MAX_SESSIONS) s.sessions.delete(s.sessions.keys().next().value);
  const waiters = s.waiting.get(sid);
  if (waiters) {
    s.waiting.delete(sid);
    for (const wake of waiters) wake();
  }
}

/** The app's workers that may take a connection of `key` now, from the live ones only. */
function candidates(app, key) {
  const out = [];
  for (const id of servingWorkers(key)) {
    const m = members.get(id);
    const w = cluster.workers?.[id];
    if (m?.app === app && w && w.isConnected() && !w.exitedAfterDisconnect) out.push({ w, slot: m.slot, id });
  }
  return out;
}

/** FNV-1a of a string, 32 bits (a hash per connection on the daemon's loop: no crypto needed, only spread). */
function fnv1a(text) {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h;
}

/** MurmurHash3's finalizer: every bit of (client hash, slot) moves every bit of the weight. */
function weight(clientHash, slot) {
  let h = clientHash ^ Math.imul(slot + 1, 0x9e3779b1);
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

/** Rendezvous hashing: the candidate with the highest weight for (client, slot); a slot's newest worker wins a tie. */
export function rendezvous(client, list) {
  const ch = fnv1a(client);
  let best = null;
  let bestScore = -1;
  for (const c of list) {
    const score = weight(ch, c.slot);
    if (score > bestScore || (score === bestScore && c.id > best.id)) {
      best = c;
      bestScore = score;
    }
  }
  return best;
}

/**
 * The worker for `token` among the live ones not in `excluded`: the one that announced that
 * session, else the rendezvous choice, else `fallback` (Node's own choice).
 */
function pickFor(app, key, token, excluded, fallback) {
  const id = apps.get(app)?.sessions.get(token);
  const live = candidates(app, key).filter((c) => !excluded.has(c.id));
  return live.find((c) => c.id === id)?.w ?? rendezvous(token, live)?.w ?? fallback;
}

/**
 * The next of the app's live workers in turn, for a connection with no session handed back
 * after its head was read: Node's own choice then follows the turn it gave up for the read
 * (release()), so it would skip every other worker.
 */
function inTurn(app, key, excluded, fallback) {
  const live = candidates(app, key).filter((c) => !excluded.has(c.id));
  return live.length ? live[appState(app).turn++ % live.length].w : fallback;
}

/**
 * handle -> what the router knows of a connection: its token (the client's address, its
 * session, or null: Node's choice), the bytes read, the worker it went to last, and the
 * workers that did not take it. Node hands a connection out again when its worker refuses
 * it (a replacement not ready yet refuses all: drain.cjs) or goes: that worker is then
 * left out for this connection, so a refusing worker cannot bounce it back and forth.
 * @type {WeakMap<object, {token: string|null, prefix: null|{peer: string, data: Buffer}, to: number|null, excluded: Set<number>, handedBack?: boolean}>}
 */
const routed = new WeakMap();

function peerOf(handle) {
  const out = /** @type {{address?: string, port?: number}} */ ({});
  return typeof handle?.getpeername === 'function' && handle.getpeername(out) === 0 ? out : null;
}

/**
 * The router of one worker of a sticky app: route(key, handle, deliver, release) is called
 * for each connection Node sends that worker. Returns false to let it go as Node chose; true
 * when it took the connection: it sends it with deliver(target, prefix) (target is the
 * worker itself when it is the one), or, to read its head first, ends the worker's turn with
 * release() and hands the connection back to its listener once the head is read.
 * @param {import('node:cluster').Worker} worker
 * @param {{by: string, cookie: string|null}} sticky
 * @param {string} app
 */
export function stickyRouter(worker, sticky, app) {
  return {
    /**
     * @param {unknown} key  Node's server key
     * @param {any} handle  the connection's raw handle
     * @param {(target: import('node:cluster').Worker, prefix: null|{peer: string, data: Buffer}) => void} deliver
     * @param {() => void} release  ends Node's handoff to this worker, the handle kept open
     */
    route(key, handle, deliver, release) {
      const send = (entry, target) => {
        entry.to = target.id;
        deliver(target, entry.prefix);
      };
      const choose = (entry) => {
        if (entry.token !== null) return pickFor(app, key, entry.token, entry.excluded, worker);
        return entry.handedBack ? inTurn(app, key, entry.excluded, worker) : worker;
      };
      const known = routed.get(handle);
      if (known) { // its head read and handed back (to: null), or handed out again: the worker it went to refused it or went
        if (known.to !== null) known.excluded.add(known.to);
        send(known, choose(known));
        return true;
      }
      const peer = peerOf(handle);
      if (sticky.by === 'ip') {
        const entry = { token: peer?.address ?? null, prefix: null, to: worker.id, excluded: new Set() };
        routed.set(handle, entry);
        const target = choose(entry);
        if (target === worker) return false;
        send(entry, target);
        return true;
      }
      if (!canHandBack(handle) || offTurn >= MAX_OFF_TURN) { // no listener to hand it back to, or too many read: the read holds this worker's turn
        readSession(handle, peer, sticky, app, (entry) => {
          if (entry === null) return release(); // the client reset it: its handle is closed, Node's turn ends
          routed.set(handle, entry);
          send(entry, choose(entry));
        });
        return true;
      }
      release();
      offTurn++;
      readSession(handle, peer, sticky, app, (entry) => {
        offTurn--;
        if (entry === null) return; // the client reset it: its handle is closed, nothing to hand on
        routed.set(handle, { ...entry, handedBack: true });
        if (!handBack(handle)) handle.close(); // its listener closed meanwhile: no worker serves it now
      });
      return true;
    },
  };
}

/**
 * Reads the head of a connection of a sid / cookie app and gives done() its entry: the
 * session token (null: Node's choice) and the bytes read; null when the connection failed
 * (its handle is closed). A session id not announced yet waits up to SID_WAIT_MS for its
 * worker's word.
 */
function readSession(handle, peer, sticky, app, done) {
  readHead(handle, (head, complete, failed) => {
    if (failed) return done(null);
    const prefix = head.length && peer ? { peer: `${peer.address}:${peer.port}`, data: head } : null;
    // Not a whole head in time or in size: by address. No session id (a handshake): Node's choice.
    const token = complete ? sessionToken(head, sticky) : peer?.address ?? null;
    const entry = { token, prefix, to: null, excluded: new Set() };
    const s = appState(app);
    if (!complete || token === null || s.sessions.has(token) || !SID.test(token)) return done(entry);
    // The worker that made this session may not have said so yet: wait a little.
    const wake = () => {
      clearTimeout(timer);
      done(entry);
    };
    const timer = setTimeout(() => {
      const list = s.waiting.get(token);
      list?.delete(wake);
      if (list?.size === 0) s.waiting.delete(token);
      wake();
    }, SID_WAIT_MS);
    if (!s.waiting.has(token)) s.waiting.set(token, new Set());
    s.waiting.get(token).add(wake);
  });
}

/**
 * Reads the first bytes of a connection off its handle, until the end of a request head,
 * HEAD_MAX bytes, the deadline, the client's end or an error; then stops reading and
 * leaves the handle to Node as it was. done(bytes, complete, failed) is called once; failed:
 * a read error (a reset), after which net has closed the handle.
 */
function readHead(handle, done) {
  const chunks = [];
  let size = 0;
  let finished = false;
  // `handle`: a raw libuv handle (net's own way to wrap an accepted connection; not in Node's typings)
  const socket = new net.Socket(/** @type {any} */ ({ handle, readable: true, writable: false, allowHalfOpen: true }));
  const finish = (complete, failed = false) => {
    if (finished) return;
    finished = true;
    clearTimeout(timer);
    socket.removeAllListeners('data');
    handle.reading = false;
    handle.readStop?.();
    handle.onread = () => {}; // the worker reads from its own copy of the descriptor
    /** @type {any} */ (socket)._handle = null; // the socket object is dropped; Node closes the handle once handed
    done(Buffer.concat(chunks, size), complete, failed);
  };
  const timer = setTimeout(() => finish(false), HEAD_DEADLINE_MS);
  socket.on('error', () => finish(false, true));
  socket.on('end', () => finish(false));
  socket.on('data', (chunk) => {
    chunks.push(chunk);
    size += chunk.length;
    if (headEnds(chunks, size)) finish(true);
    else if (size >= HEAD_MAX) finish(false);
  });
}

function headEnds(chunks, size) {
  const tail = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size);
  return tail.indexOf('\r\n\r\n') !== -1;
}

/**
 * The session token of a request head: the URL's sid= (by sid), or the cookie (by cookie);
 * null when it has none. Only the request line and the Cookie lines are looked at.
 */
export function sessionToken(head, sticky) {
  const text = head.toString('latin1', 0, Math.min(head.length, HEAD_MAX));
  const eol = text.indexOf('\r\n');
  const line = eol === -1 ? text : text.slice(0, eol);
  if (sticky.by === 'sid') {
    const m = /[?&]sid=([^&\s#]{1,128})/.exec(line);
    return m ? m[1] : null; // engine.io's ids are URL-safe: no decoding
  }
  const name = sticky.cookie;
  for (const header of text.split('\r\n').slice(1)) {
    if (!/^cookie:/i.test(header)) continue;
    for (const pair of header.slice(7).split(';')) {
      const i = pair.indexOf('=');
      if (i !== -1 && pair.slice(0, i).trim() === name) return pair.slice(i + 1).trim().slice(0, 128) || null;
    }
  }
  return null;
}

/** Sends a connection's first bytes to the worker about to get it (before Node's 'newconn', on the same channel). */
export function sendPrefix(target, prefix) {
  tellAgent(target.process, TO_AGENT.STICKY_PREFIX, { peer: prefix.peer, data: prefix.data.toString('base64') });
}

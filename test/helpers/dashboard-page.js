// A page of `super dashboard` as its websocket, without a browser: for the tests of what
// the dashboard lets a page see and do.
import WebSocket from 'ws';

/**
 * A page's websocket (Origin of the dashboard), `protocols` as a page offers them; resolves
 * once open with {ws, messages, next(type)}: next waits (bounded) for a message of that type.
 */
export function page(base, protocols = ['superd']) {
  const url = new URL(base);
  const ws = new WebSocket(`ws://${url.host}/ws`, protocols, { origin: url.origin });
  const messages = [];
  const waiters = [];
  ws.on('message', (d) => {
    const m = JSON.parse(String(d));
    messages.push(m);
    for (const w of [...waiters]) if (w.type === m.type) { waiters.splice(waiters.indexOf(w), 1); w.resolve(m); }
  });
  const next = (type, timeout = 5000) => {
    const seen = messages.find((m) => m.type === type && !m.taken);
    if (seen) { seen.taken = true; return Promise.resolve(seen); }
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no "${type}" message within ${timeout} ms; got ${messages.map((m) => m.type)}`)), timeout);
      waiters.push({ type, resolve: (m) => { clearTimeout(timer); m.taken = true; resolve(m); } });
    });
  };
  return new Promise((resolve, reject) => {
    ws.on('open', () => resolve({ ws, messages, next }));
    ws.on('unexpected-response', (req, res) => reject(new Error(`upgrade refused: ${res.statusCode}`)));
    ws.on('error', reject);
  });
}

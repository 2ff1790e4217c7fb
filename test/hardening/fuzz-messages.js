// Hostile control messages from a seeded PRNG: malformed and truncated JSON, wrongly
// typed arguments for every op of lib/ipc/protocol.js OPS (read from the module, so a new
// op is fuzzed without touching this file), unknown ops, prototype-pollution keys, deep
// nesting, huge numbers, long strings, binary frames.
//
// A generated message that the protocol would accept and that could change what runs
// (stop, reload, scale, kill, ...) is aimed at an app that does not exist, or dropped:
// the fuzz must prove the daemon survives garbage, not that `stop all` stops everything.
import { OPS, TOPICS, parseRequest } from '../../lib/ipc/protocol.js';

/** Ops that only read, or change nothing an app or the saved state depends on. */
const SAFE = new Set(['ping', 'version', 'ls', 'describe', 'subscribe', 'unsubscribe', 'stats', 'logs', 'reload-logs']);
/** Files a `start` may name: none is an ecosystem; some must never be read whole. */
const HOSTILE_FILES = ['/dev/zero', '/dev/urandom', '/dev/null', '/', '/etc', '/proc/self/status', '/nonexistent/eco.yml', 'relative.yml', '/etc/passwd'];

export function mulberry32(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * The id the daemon must answer with, by the protocol's rule (independent of its code):
 * a JSON object's "id" when it is a safe integer or a string of at most 64 characters,
 * else null.
 */
export function expectedId(text) {
  try {
    const m = JSON.parse(text);
    if (m !== null && typeof m === 'object' && !Array.isArray(m)) {
      if (Number.isSafeInteger(m.id) || (typeof m.id === 'string' && m.id.length <= 64)) return m.id;
    }
  } catch {}
  return null;
}

/**
 * @param {() => number} rand  uniform [0, 1)
 * @param {{ghost: string}} o  an app name that does not exist
 * @returns {() => {kind: string, text?: string, binary?: Buffer}}
 */
export function makeGenerator(rand, { ghost }) {
  const int = (n) => Math.floor(rand() * n);
  const pick = (a) => a[int(a.length)];
  const ops = Object.keys(OPS);
  let nextId = 1;

  const NUMBERS = ['0', '-0', '1', '-1', '4', '2.5', '1e308', '1e400', '-1e400', '9007199254740993', '-9007199254740993', '1E2',
    '123456789012345678901234567890', '99999', '100001', '0.0000001'];
  const WORDS = ['', 'web', 'bg', 'all', ghost, '4', '+2', '-1', '0', '99999', 'out', 'err', 'worker', 'log', 'metrics', 'reload', 'watch',
    '__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', '../../etc/passwd', '/dev/zero', '\u0000', '%s%n%x', '${PATH}',
    'ls', 'true', 'null', '😀', 'é', 'x'.repeat(4097), 'y'.repeat(300), ' web', 'WEB', 'web\n'];
  const ODD_KEYS = ['__proto__', 'constructor', 'prototype', 'toString', 'valueOf', 'hasOwnProperty', '', ' ', 'x'.repeat(2000), 'id', 'op', 'args'];
  const BAD_IDS = ['null', '1.5', '"' + 'i'.repeat(65) + '"', '1e400', '9007199254740993', 'true', '[]', '{}', '[1]', '-1e400', '""'];

  function randomString() {
    let s = '';
    const n = int(12);
    for (let i = 0; i < n; i++) {
      const r = rand();
      // mostly ASCII, some control characters, some other planes (never lone surrogates)
      const cp = r < 0.7 ? 32 + int(95) : r < 0.8 ? int(32) : r < 0.95 ? 0xa0 + int(0xd000) : 0x1f600 + int(80);
      s += String.fromCodePoint(cp);
    }
    return s;
  }

  function str() {
    return JSON.stringify(rand() < 0.6 ? pick(WORDS) : randomString());
  }

  /** Any JSON value, as text. */
  function val(depth = 0) {
    const r = rand();
    if (r < 0.25) return pick(NUMBERS);
    if (r < 0.55) return str();
    if (r < 0.65) return pick(['true', 'false', 'null']);
    if (depth > 3) return '0';
    if (r < 0.75) return `[${Array.from({ length: int(4) }, () => (rand() < 0.5 ? JSON.stringify(pick(TOPICS)) : val(depth + 1))).join(',')}]`;
    return obj(depth + 1);
  }

  function obj(depth = 0) {
    const n = int(4);
    const parts = [];
    for (let i = 0; i < n; i++) parts.push(`${JSON.stringify(rand() < 0.3 ? pick(ODD_KEYS) : randomString())}:${val(depth)}`);
    return `{${parts.join(',')}}`;
  }

  const id = () => (rand() < 0.85 ? String(nextId++) : rand() < 0.5 ? JSON.stringify(`s${nextId++}`) : pick(BAD_IDS));

  /** A request for a real op whose arguments are mostly of the wrong type. */
  function typed() {
    const op = pick(ops);
    const spec = Object.keys(OPS[op]);
    let args;
    const r = rand();
    if (r < 0.08) args = val();
    else {
      const parts = [];
      for (const key of spec) if (rand() < 0.7) parts.push(`${JSON.stringify(key)}:${val()}`);
      if (rand() < 0.2) parts.push(`${JSON.stringify(pick(ODD_KEYS))}:${val()}`);
      args = `{${parts.join(',')}}`;
    }
    return rand() < 0.1 ? `{"id":${id()},"op":${JSON.stringify(op)}}` : `{"id":${id()},"op":${JSON.stringify(op)},"args":${args}}`;
  }

  /** A request the protocol accepts, for an op that only reads. */
  function safeValid() {
    return pick([
      () => `{"id":${nextId++},"op":"ping"}`,
      () => `{"id":${nextId++},"op":"version","args":{}}`,
      () => `{"id":${nextId++},"op":"ls","args":{"history":${rand() < 0.5}}}`,
      () => `{"id":${nextId++},"op":"describe","args":{"app":${JSON.stringify(pick(['web', 'bg', ghost]))}}}`,
      () => `{"id":${nextId++},"op":"logs","args":{"target":${JSON.stringify(pick(['web', 'all', ghost]))},"lines":${pick([0, 1, 20, 100000])}}}`,
      () => `{"id":${nextId++},"op":"stats","args":{"reset":${rand() < 0.5}}}`,
      () => `\t\n {"id":${nextId++},"op":"ping"} \n`,
    ])();
  }

  /** @type {[number, string, () => any][]} weight, kind, generator */
  const generators = [
    [30, 'typed', () => typed()],
    [10, 'truncated', () => {
      const t = typed();
      return t.slice(0, int(t.length));
    }],
    [12, 'mutated', () => {
      let t = typed();
      for (let i = 0, n = 1 + int(4); i < n; i++) {
        const at = int(t.length + 1);
        const r = rand();
        if (r < 0.4) t = t.slice(0, at) + t.slice(at + 1 + int(3));
        else if (r < 0.8) t = t.slice(0, at) + pick(['{', '}', '[', ']', '"', ':', ',', '\\', ' ', '0', 'e', '\\u', '\u0000']) + t.slice(at);
        else t = t.slice(0, at) + t.slice(at).toUpperCase();
      }
      return t;
    }],
    [8, 'unknown-op', () => {
      const op = pick(['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf', 'LS', ' ls', 'ls\u0000', 'stop all', '', 'x'.repeat(10000), ...ops.map((o) => `${o}x`)]);
      return `{"id":${id()},"op":${JSON.stringify(op + (rand() < 0.3 ? randomString() : ''))}${rand() < 0.5 ? `,"args":${val()}` : ''}}`;
    }],
    [6, 'op-type', () => `{"id":${id()},"op":${val()}}`],
    [6, 'pollution', () => pick([
      () => `{"__proto__":{"op":"ls","id":1},"id":${id()}}`,
      () => `{"id":${id()},"op":"ls","args":{"__proto__":{"history":true}}}`,
      () => `{"id":${id()},"op":${JSON.stringify(pick(ops))},"args":{"constructor":{"prototype":{"polluted":true}}}}`,
      () => `{"id":${id()},"constructor":{"prototype":{"polluted":true}},"op":"ping"}`,
      () => `{"id":${id()},"op":"start","args":{"file":"/nonexistent.yml","clientEnv":{"__proto__":{"polluted":"yes"}}}}`,
      () => `{"id":${id()},"op":"subscribe","args":{"topics":["__proto__","constructor"]}}`,
      () => `{"id":${id()},"op":"logs","args":{"target":"__proto__"}}`,
      () => `{"id":${id()},"op":"describe","args":{"app":"hasOwnProperty"}}`,
    ])()],
    [5, 'deep', () => {
      const d = pick([64, 1000, 10000, 100000]);
      const open = rand() < 0.5 ? '['.repeat(d) : '{"a":'.repeat(d);
      const close = open[0] === '[' ? ']'.repeat(d) : '}'.repeat(d);
      const nest = rand() < 0.2 ? open : open + '0' + close; // sometimes never closed
      return pick([
        () => nest,
        () => `{"id":${id()},"op":"ls","args":{"history":${nest}}}`,
        () => `{"id":${id()},"op":${JSON.stringify(pick(ops))},"args":${nest}}`,
        () => `{"id":${nest},"op":"ping"}`,
      ])();
    }],
    [5, 'huge-number', () => `{"id":${pick([...NUMBERS, String(nextId++)])},"op":${JSON.stringify(pick(ops))},"args":{${JSON.stringify(pick(['lines', 'since', 'count', 'history', 'app']))}:${pick(NUMBERS)}}}`],
    [5, 'not-object', () => val()],
    [4, 'junk', () => pick(['', ' ', 'not json', 'undefined', 'NaN', "{'id':1}", '{"id":1,}', '{id:1}', '\u0000\u0001\u0002', '\ufeff{"id":1,"op":"ping"}', '//', '{"id":1,"op":"ping"}{"id":2}', '"\\ud800"', randomString()])],
    [3, 'duplicate-keys', () => `{"id":${id()},"op":"stop","op":${JSON.stringify(pick(ops))},"args":{"target":"web","target":${str()}}}`],
    [3, 'long', () => `{"id":${id()},"op":${JSON.stringify(pick(ops))},"args":{${JSON.stringify(pick(ODD_KEYS))}:${JSON.stringify('z'.repeat(int(200000)))}}}`],
    [1, 'start-file', () => `{"id":${id()},"op":"start","args":{"file":${JSON.stringify(pick(HOSTILE_FILES))}}}`],
    [10, 'safe-valid', () => safeValid()],
    [3, 'binary', () => null],
  ];
  const total = generators.reduce((s, g) => s + g[0], 0);

  /** Aims a message the protocol accepts away from anything that could stop or change an app. */
  function defuse(text) {
    const req = parseRequest(text);
    // (an op OPS does not own cannot stop anything; if parseRequest let one through, the
    // daemon must be the one to show it)
    if (req.error || SAFE.has(req.op) || !Object.hasOwn(OPS, req.op)) return text;
    const spec = OPS[req.op];
    const msg = JSON.parse(text);
    if (Object.hasOwn(spec, 'target')) msg.args = { ...req.args, target: ghost };
    else if (Object.hasOwn(spec, 'app')) msg.args = { ...req.args, app: ghost };
    else if (Object.hasOwn(spec, 'file')) msg.args = { ...req.args, file: pick(HOSTILE_FILES) };
    else return null; // kill, save, resurrect, ...: no harmless form
    return JSON.stringify(msg);
  }

  // First a sweep that does not depend on luck: every op with no args, empty args, each
  // argument of the wrong type and an unknown argument; every odd op name.
  const WRONG = ['null', 'true', '0', '-1', '1e400', '""', '"all"', `"${ghost}"`, '[]', '["web"]', '{}', '{"__proto__":1}', JSON.stringify('w'.repeat(5000))];
  const sweep = [];
  for (const op of [...ops, 'constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf', 'isPrototypeOf', 'propertyIsEnumerable', 'toLocaleString', '__defineGetter__', '']) {
    const o = JSON.stringify(op);
    sweep.push(`{"id":${nextId++},"op":${o}}`, `{"id":${nextId++},"op":${o},"args":{}}`, `{"id":${nextId++},"op":${o},"args":null}`,
      `{"id":${nextId++},"op":${o},"args":[]}`, `{"id":${nextId++},"op":${o},"args":{"__proto__":{}}}`, `{"id":${nextId++},"op":${o},"args":{"constructor":{}}}`);
    for (const key of Object.keys(OPS[op] ?? {})) for (const v of WRONG) sweep.push(`{"id":${nextId++},"op":${o},"args":{${JSON.stringify(key)}:${v}}}`);
  }

  return function next() {
    while (sweep.length) {
      const text = defuse(sweep.shift());
      if (text !== null) return { kind: 'sweep', text };
    }
    for (;;) {
      let r = rand() * total;
      const [, kind, gen] = generators.find((g) => (r -= g[0]) < 0) ?? generators[0];
      if (kind === 'binary') {
        const b = rand() < 0.5 ? Buffer.from(`{"id":${nextId++},"op":"ping"}`) : Buffer.from(Array.from({ length: int(64) }, () => int(256)));
        return { kind, binary: b };
      }
      // toWellFormed: a cut surrogate pair would be re-encoded as U+FFFD on the wire.
      const text = defuse(gen().toWellFormed());
      if (text !== null) return { kind, text };
    }
  };
}

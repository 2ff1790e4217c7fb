'use strict';
// log_date_format: compiles a format like `YYYY-MM-DD HH:mm:ss.SSS Z` into a formatter
// (used by the worker agent on every line, so it is compiled once and caches the
// formatted second) and a parser (used by `super logs --since` to read the time back).
// CommonJS because the preloaded agent (lib/worker/agent.cjs) requires it.
//
// Tokens (local time):  YYYY 2026  YY 26  MM 01-12  M 1-12  DD 01-31  D 1-31
//   HH 00-23  H 0-23  mm 00-59  m 0-59  ss 00-59  s 0-59  SSS 000-999
//   Z +01:00  ZZ +0100  X unix seconds  x unix milliseconds
// Anything else is copied as is; text in [brackets] is copied without the brackets.

const TOKENS = ['YYYY', 'YY', 'MM', 'M', 'DD', 'D', 'HH', 'H', 'mm', 'm', 'ss', 's', 'SSS', 'ZZ', 'Z', 'X', 'x'];
const TOKEN_RE = /\[([^\]]*)\]|YYYY|YY|MM|M|DD|D|HH|H|mm|m|ss|s|SSS|ZZ|Z|X|x/g;

const pad = (n, w = 2) => String(n).padStart(w, '0');

function offset(d, colon) {
  const m = -d.getTimezoneOffset();
  const sign = m < 0 ? '-' : '+';
  const a = Math.abs(m);
  return `${sign}${pad(Math.floor(a / 60))}${colon ? ':' : ''}${pad(a % 60)}`;
}

const FORMAT = {
  YYYY: (d) => String(d.getFullYear()),
  YY: (d) => pad(d.getFullYear() % 100),
  MM: (d) => pad(d.getMonth() + 1),
  M: (d) => String(d.getMonth() + 1),
  DD: (d) => pad(d.getDate()),
  D: (d) => String(d.getDate()),
  HH: (d) => pad(d.getHours()),
  H: (d) => String(d.getHours()),
  mm: (d) => pad(d.getMinutes()),
  m: (d) => String(d.getMinutes()),
  ss: (d) => pad(d.getSeconds()),
  s: (d) => String(d.getSeconds()),
  SSS: (d) => pad(d.getMilliseconds(), 3),
  Z: (d) => offset(d, true),
  ZZ: (d) => offset(d, false),
  X: (d) => String(Math.floor(d.getTime() / 1000)),
  x: (d) => String(d.getTime()),
};

/** Splits a format into literal strings and token names. */
function tokenize(fmt) {
  const parts = [];
  let last = 0;
  for (const m of fmt.matchAll(TOKEN_RE)) {
    if (m.index > last) parts.push({ lit: fmt.slice(last, m.index) });
    parts.push(m[1] !== undefined ? { lit: m[1] } : { tok: m[0] });
    last = m.index + m[0].length;
  }
  if (last < fmt.length) parts.push({ lit: fmt.slice(last) });
  return parts;
}

/** @returns {(ms: number) => string} */
function compileFormat(fmt) {
  const parts = tokenize(fmt);
  const subSecond = parts.some((p) => p.tok === 'SSS' || p.tok === 'x');
  let cachedAt = -1;
  let cached = '';
  return (ms) => {
    const key = subSecond ? ms : Math.floor(ms / 1000);
    if (key !== cachedAt) {
      const d = new Date(ms);
      cached = parts.map((p) => (p.tok ? FORMAT[p.tok](d) : p.lit)).join('');
      cachedAt = key;
    }
    return cached;
  };
}

const PATTERN = {
  YYYY: '(\\d{4})', YY: '(\\d{2})', MM: '(\\d{2})', M: '(\\d{1,2})', DD: '(\\d{2})', D: '(\\d{1,2})',
  HH: '(\\d{2})', H: '(\\d{1,2})', mm: '(\\d{2})', m: '(\\d{1,2})', ss: '(\\d{2})', s: '(\\d{1,2})',
  SSS: '(\\d{3})', Z: '([+-]\\d{2}:\\d{2})', ZZ: '([+-]\\d{4})', X: '(\\d+)', x: '(\\d+)',
};
const escapeRe = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * A parser for lines that start with a timestamp in `fmt`.
 * @returns {(line: string) => number|null} epoch ms, or null when the line does not start with one
 */
function compileParser(fmt) {
  const parts = tokenize(fmt);
  const toks = parts.filter((p) => p.tok).map((p) => p.tok);
  const re = new RegExp(`^${parts.map((p) => (p.tok ? PATTERN[p.tok] : escapeRe(p.lit))).join('')}`);
  return (line) => {
    const m = re.exec(line);
    if (!m) return null;
    const f = { Y: 1970, M: 1, D: 1, H: 0, m: 0, s: 0, S: 0, off: null };
    toks.forEach((t, i) => {
      const v = m[i + 1];
      if (t === 'X') f.epoch = Number(v) * 1000;
      else if (t === 'x') f.epoch = Number(v);
      else if (t === 'YYYY') f.Y = Number(v);
      else if (t === 'YY') f.Y = 2000 + Number(v);
      else if (t === 'MM' || t === 'M') f.M = Number(v);
      else if (t === 'DD' || t === 'D') f.D = Number(v);
      else if (t === 'HH' || t === 'H') f.H = Number(v);
      else if (t === 'mm' || t === 'm') f.m = Number(v);
      else if (t === 'ss' || t === 's') f.s = Number(v);
      else if (t === 'SSS') f.S = Number(v);
      else f.off = (v[0] === '-' ? -1 : 1) * (Number(v.slice(1, 3)) * 60 + Number(v.slice(-2)));
    });
    if (f.epoch !== undefined) return f.epoch;
    if (f.off === null) return new Date(f.Y, f.M - 1, f.D, f.H, f.m, f.s, f.S).getTime();
    return Date.UTC(f.Y, f.M - 1, f.D, f.H, f.m, f.s, f.S) - f.off * 60000;
  };
}

module.exports = { compileFormat, compileParser, TOKENS };

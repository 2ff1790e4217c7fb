'use strict';
// log_date_format: dayjs format strings, as PM2 writes them (PM2 formats with dayjs too).
//   compileFormat  the worker agent's formatter (every line: compiled once, the formatted
//                  second cached); loads dayjs, so only required when a format is set
//   compileParser  reads the time back at the start of a line (`super logs --since`)
//   refusedToken   a token refused at the key: dayjs renders it only with plugins that
//                  superd does not load (week numbers, time-zone names)
// CommonJS because the preloaded agent (lib/worker/log-format.cjs) requires it.
//
// Tokens: dayjs's (YYYY YY M MM MMM MMMM D DD d dd ddd dddd H HH h hh m mm s ss SSS Z ZZ
// A a) and its advancedFormat plugin's (Do Q k kk X x); [text] is copied without the
// brackets; anything else is copied as is, as dayjs does.

const REFUSED_RE = /wo|ww|w|WW|W|zzz|z|gggg|GGGG/;
const BRACKETS_RE = /\[[^\]]*\]/g;

/** The first token of `fmt` that superd refuses, or null. */
function refusedToken(fmt) {
  const m = REFUSED_RE.exec(fmt.replace(BRACKETS_RE, ''));
  return m ? m[0] : null;
}

/** @returns {(ms: number) => string} */
function compileFormat(fmt) {
  const dayjs = require('dayjs');
  dayjs.extend(require('dayjs/plugin/advancedFormat'));
  const subSecond = /SSS|x/.test(fmt.replace(BRACKETS_RE, ''));
  let cachedAt = -1;
  let cached = '';
  return (ms) => {
    const key = subSecond ? ms : Math.floor(ms / 1000);
    if (key !== cachedAt) {
      cached = dayjs(ms).format(fmt);
      cachedAt = key;
    }
    return cached;
  };
}

const MONTHS = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'];
const TOKEN_RE = /\[([^\]]*)\]|YYYY|YY|MMMM|MMM|MM|M|Do|DD|D|dddd|ddd|dd|d|HH|H|hh|h|kk|k|mm|m|ss|s|SSS|ZZ|Z|X|x|A|a|Q/g;
const NAME = '([A-Za-z]+)';
const PATTERN = {
  YYYY: '(\\d{4})', YY: '(\\d{2})', MMMM: NAME, MMM: NAME, MM: '(\\d{2})', M: '(\\d{1,2})',
  Do: '(\\d{1,2})[a-z]{2}', DD: '(\\d{2})', D: '(\\d{1,2})', dddd: NAME, ddd: NAME, dd: NAME, d: '(\\d)',
  HH: '(\\d{2})', H: '(\\d{1,2})', hh: '(\\d{2})', h: '(\\d{1,2})', kk: '(\\d{2})', k: '(\\d{1,2})',
  mm: '(\\d{2})', m: '(\\d{1,2})', ss: '(\\d{2})', s: '(\\d{1,2})', SSS: '(\\d{3})',
  Z: '([+-]\\d{2}:\\d{2})', ZZ: '([+-]\\d{4})', X: '(\\d+)', x: '(\\d+)', A: '(AM|PM)', a: '(am|pm)', Q: '(\\d)',
};
const escapeRe = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * A parser for lines that start with a timestamp in `fmt`.
 * @returns {(line: string) => number|null} epoch ms, or null when the line does not start with one
 */
function compileParser(fmt) {
  const toks = [];
  let source = '^';
  let last = 0;
  for (const m of fmt.matchAll(TOKEN_RE)) {
    source += escapeRe(fmt.slice(last, m.index));
    if (m[1] !== undefined) source += escapeRe(m[1]);
    else {
      source += PATTERN[m[0]];
      toks.push(m[0]);
    }
    last = m.index + m[0].length;
  }
  const re = new RegExp(source + escapeRe(fmt.slice(last)));
  return (line) => {
    const m = re.exec(line);
    if (!m) return null;
    /** @type {{Y: number, M: number, D: number, H: number, m: number, s: number, S: number, off: number|null, pm: boolean|null, epoch?: number}} */
    const f = { Y: 1970, M: 1, D: 1, H: 0, m: 0, s: 0, S: 0, off: null, pm: null };
    toks.forEach((t, i) => {
      const v = m[i + 1];
      if (t === 'X') f.epoch = Number(v) * 1000;
      else if (t === 'x') f.epoch = Number(v);
      else if (t === 'YYYY') f.Y = Number(v);
      else if (t === 'YY') f.Y = 2000 + Number(v);
      else if (t === 'MMM' || t === 'MMMM') f.M = MONTHS.findIndex((name) => name.startsWith(v.toLowerCase())) + 1;
      else if (t === 'MM' || t === 'M') f.M = Number(v);
      else if (t === 'DD' || t === 'D' || t === 'Do') f.D = Number(v);
      else if (t === 'HH' || t === 'H' || t === 'hh' || t === 'h') f.H = Number(v);
      else if (t === 'kk' || t === 'k') f.H = Number(v) % 24;
      else if (t === 'A' || t === 'a') f.pm = v.toLowerCase() === 'pm';
      else if (t === 'mm' || t === 'm') f.m = Number(v);
      else if (t === 'ss' || t === 's') f.s = Number(v);
      else if (t === 'SSS') f.S = Number(v);
      else if (t === 'Z' || t === 'ZZ') f.off = (v[0] === '-' ? -1 : 1) * (Number(v.slice(1, 3)) * 60 + Number(v.slice(-2)));
      // weekday names and numbers, quarters: implied by the date
    });
    if (f.epoch !== undefined) return f.epoch;
    if (f.M < 1) return null;
    if (f.pm !== null) f.H = (f.H % 12) + (f.pm ? 12 : 0);
    if (f.off === null) return new Date(f.Y, f.M - 1, f.D, f.H, f.m, f.s, f.S).getTime();
    return Date.UTC(f.Y, f.M - 1, f.D, f.H, f.m, f.s, f.S) - f.off * 60000;
  };
}

module.exports = { compileFormat, compileParser, refusedToken };

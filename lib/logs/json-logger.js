// The daemon's logger: the JSON line pino writes, byte for byte, without pino (which kept
// ~7 MB in the daemon's memory for a dozen lines a day). A line is
//   {"level":30,"time":"<ISO>",<base fields>,<the call's fields>,"msg":"..."}\n
// with pino's levels (debug 20 and below are not written: pino's default level is info),
// and an `err` field written as pino's standard serializer does: {type, message, stack,
// ...its own fields}, causes appended to message and stack.

const LEVELS = { debug: 20, info: 30, warn: 40, error: 50, fatal: 60 };
const MIN_LEVEL = LEVELS.info;

/**
 * @typedef {{debug: LogFn, info: LogFn, warn: LogFn, error: LogFn, fatal: LogFn, flush: (cb: () => void) => void}} JsonLogger
 * @typedef {(fieldsOrMsg?: object|string|Error, msg?: string) => void} LogFn
 */

/**
 * @param {{write: (line: string) => unknown, flush: (cb: () => void) => void}} dest
 * @param {object} base  fields of every line, after level and time
 * @returns {JsonLogger}
 */
export function createJsonLogger(dest, base) {
  const baseText = Object.entries(base).map(([k, v]) => `,${JSON.stringify(k)}:${JSON.stringify(v)}`).join('');
  const logger = /** @type {JsonLogger} */ ({ flush: (cb) => dest.flush(cb) });
  for (const [name, level] of Object.entries(LEVELS)) {
    logger[name] = level < MIN_LEVEL ? () => {} : (fields, msg) => dest.write(formatLine(level, baseText, fields, msg));
  }
  return logger;
}

/** pino's line for log.<level>(fields, msg), log.<level>(msg) or log.<level>(error[, msg]). */
function formatLine(level, baseText, fields, msg) {
  if (typeof fields === 'string') [fields, msg] = [{}, fields];
  else if (isErrorLike(fields)) [fields, msg] = [{ err: fields }, msg ?? fields.message];
  let line = `{"level":${level},"time":"${new Date().toISOString()}"${baseText}`;
  for (const key of Object.keys(fields ?? {})) {
    const text = stringify(key === 'err' ? serializeError(fields.err) : fields[key]);
    if (text !== undefined) line += `,${JSON.stringify(key)}:${text}`;
  }
  if (msg !== undefined) line += `,"msg":${stringify(msg)}`;
  return `${line}}\n`;
}

/** JSON.stringify, with "[Circular]" for a cycle as pino writes it (and no throw on a BigInt). */
function stringify(value) {
  try {
    return JSON.stringify(value);
  } catch {
    const stack = [];
    return JSON.stringify(value, function (key, v) {
      if (typeof v === 'bigint') return v.toString();
      if (typeof v !== 'object' || v === null) return v;
      while (stack.length && stack.at(-1) !== this) stack.pop();
      if (stack.includes(v)) return '[Circular]';
      stack.push(v);
      return v;
    });
  }
}

const isErrorLike = (err) => Boolean(err) && typeof err.message === 'string';

/** pino's standard `err` serializer (pino-std-serializers), for what the daemon logs. */
function serializeError(err, seen = new Set()) {
  if (!isErrorLike(err)) return err;
  seen.add(err);
  const out = {
    type: typeof err.constructor === 'function' ? err.constructor.name : err.name,
    message: withCauses(err, (e) => e.message || '', ': ', ': ...'),
    stack: withCauses(err, (e) => e.stack || '', '\ncaused by: ', '\ncauses have become circular...'),
  };
  if (Array.isArray(err.errors)) out.aggregateErrors = err.errors.map((e) => serializeError(e, seen));
  for (const key in err) {
    if (out[key] !== undefined) continue;
    const value = err[key];
    if (!isErrorLike(value)) out[key] = value;
    else if (key !== 'cause' && !seen.has(value)) out[key] = serializeError(value, seen);
  }
  seen.delete(err);
  return out;
}

/** The text of an error and of its causes (err.cause, err.cause.cause...), joined by `sep`; a cycle ends with `circular`. */
function withCauses(err, text, sep, circular) {
  const visited = new Set();
  let out = '';
  for (let e = err; isErrorLike(e); e = e.cause) {
    out += (visited.size ? sep : '') + text(e);
    if (visited.has(e)) return out + circular;
    visited.add(e);
  }
  return out;
}

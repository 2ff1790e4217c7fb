// The daemon's logger writes the line pino writes (users' shippers and our tests read
// daemon.log as pino's): the same calls through both, lines compared but for the time.
import test from 'node:test';
import assert from 'node:assert/strict';
import pino from 'pino';
import { createJsonLogger } from '../../lib/logs/json-logger.js';

test('daemon log lines are pino\'s lines, field for field', () => {
  const theirs = [];
  const ours = [];
  const reference = pino({ base: { daemon_pid: 42 }, timestamp: pino.stdTimeFunctions.isoTime }, { write: (l) => theirs.push(l) });
  const log = createJsonLogger({ write: (l) => ours.push(l), flush: (cb) => cb() }, { daemon_pid: 42 });

  const coded = Object.assign(new Error('boom'), { code: 'EX', errno: -28 });
  const caused = new Error('outer', { cause: new Error('inner', { cause: new TypeError('deep') }) });
  const cycleA = new Error('A');
  cycleA.cause = new Error('B', { cause: cycleA });
  const nested = Object.assign(new Error('n'), { other: new RangeError('o'), info: { a: 1 } });
  /** @type {[string, ...any[]][]} level, then the arguments */
  const calls = [
    ['info', 'a message alone'],
    ['info', { a: 1, b: 'x"y\n', c: undefined, d: null, e: [1, { f: 2 }], g: { h: undefined } }, 'fields'],
    ['info', { z: 1, o: { b: 1, a: 2 }, n: NaN, inf: Infinity, date: new Date(0), fn() {} }, 'order and specials'],
    ['info', { x: 1 }],
    ['info', 'no %s formatting %d'],
    ['info', { u: '\u2028', ctrl: '\u0001' }, 'unicode é'],
    ['warn', { msg: 'a field named msg' }, 'the message'],
    ['error', { err: coded, app: 'web' }, 'an Error'],
    ['fatal', { err: coded }, 'fatal'],
    ['error', { err: 'a string' }, 'err as text'],
    ['error', { err: { message: 'error-like' } }, 'an object with a message'],
    ['error', { err: caused }, 'causes'],
    ['error', { err: cycleA }, 'a cycle of causes'],
    ['error', { err: new AggregateError([new Error('x'), new RangeError('y')], 'many') }, 'aggregate'],
    ['error', { err: nested }, 'nested errors'],
    ['error', { err: null, code: undefined }, 'empty err'],
    ['error', coded, 'an Error first'],
    ['error', coded],
    ['info', { nested: { err: coded } }, 'an err below the top'],
    ['debug', 'below the level: not written'],
  ];
  for (const [level, ...args] of calls) {
    reference[level](...args);
    log[level](...args);
  }
  const timeless = (line) => line.replace(/"time":"[^"]+"/, '"time":"T"');
  assert.equal(ours.length, theirs.length);
  for (let i = 0; i < theirs.length; i++) assert.equal(timeless(ours[i]), timeless(theirs[i]));
  assert.match(ours[0], /^\{"level":30,"time":"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z","daemon_pid":42,"msg":"a message alone"\}\n$/);
});

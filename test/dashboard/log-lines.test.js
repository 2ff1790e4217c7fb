// The log lines a page shows, with the time each carries (lib/dashboard/log-lines.js): the
// tail read back from a host's files merged by those times.
import test from 'node:test';
import assert from 'node:assert/strict';
import { lineTime, tailLines } from '../../lib/dashboard/log-lines.js';

test('a line\'s time: a leading date (time: true, log_date_format) or a JSON line\'s time; else none', () => {
  assert.deepEqual(lineTime('2026-11-28T08:50:31.123Z: listening'), { t: Date.UTC(2026, 10, 28, 8, 50, 31, 123), text: 'listening' });
  assert.deepEqual(lineTime('2026-11-28 08:50:31 +01:00: up'), { t: Date.UTC(2026, 10, 28, 7, 50, 31), text: 'up' });
  assert.equal(lineTime('2026-11-28 08:50:31: local').t, new Date(2026, 10, 28, 8, 50, 31).getTime());
  assert.deepEqual(lineTime('{"level":30,"time":1700000000000,"msg":"hi"}'), { t: 1700000000000, text: 'hi' });
  assert.deepEqual(lineTime('Error: EADDRINUSE 127.0.0.1:3000'), { t: null, text: 'Error: EADDRINUSE 127.0.0.1:3000' });
  assert.equal(lineTime('2026-13-45T99:99:99Z: no such date').t, null);
});

test('a host\'s tail: dated lines by time, a stack trace after its line, undated files first', () => {
  const files = [
    { app: 'a', slot: null, stream: 'out', lines: ['2026-01-01T00:00:03Z: a3', '2026-01-01T00:00:01Z: a1'] },
    { app: 'a', slot: null, stream: 'err', lines: ['2026-01-01T00:00:02Z: boom', '    at main (a.js:1)'] },
    { app: 'b', slot: 0, stream: 'out', lines: ['old undated', ''] },
  ];
  const lines = tailLines('h', files, 10);
  assert.deepEqual(lines.map((l) => l.text), ['old undated', 'a1', 'boom', '    at main (a.js:1)', 'a3']);
  assert.deepEqual(lines[0], { host: 'h', app: 'b', slot: 0, stream: 'out', text: 'old undated', t: null });
  assert.equal(lines[3].t, null, 'the stack trace line carries no time of its own');
  assert.deepEqual(tailLines('h', files, 2).map((l) => l.text), ['    at main (a.js:1)', 'a3']);
});

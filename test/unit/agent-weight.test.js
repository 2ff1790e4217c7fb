// The HAProxy agent's answer (lib/master/health/agent-weight.js, pure) and its listener's
// protocol (agent-check.js on a real socket): a line per connection, then close; the app
// named by HAProxy's agent-send line, or every app when it sends none.
import test from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { agentAnswer, appWeight, MIN_SHARE } from '../../lib/master/health/agent-weight.js';
import { startAgentCheck } from '../../lib/master/health/agent-check.js';

const worker = (pid, extra = {}) => ({ pid, status: 'online', ...extra });
const app = (name, workers, { instances = workers.length, status = 'online' } = {}) => ({ name, status, config: { instances }, workers });

test('weight: the spare share of the desired workers, from each serving worker\'s ELU', () => {
  const figures = { 1: { elu: 0.2, shedding: false }, 2: { elu: 0.6, shedding: false } };
  const of = (pid) => figures[pid] ?? null;
  assert.deepEqual(appWeight(app('api', [worker(1), worker(2)]), of), { word: 'weight', weight: 60, why: 'api 2/2 ready' }); // (0.8 + 0.4) / 2
  // A worker that has not reported yet counts as idle; one of two desired missing halves it.
  assert.equal(appWeight(app('api', [worker(3)], { instances: 2 }), of).weight, 50);
  // A saturated worker keeps MIN_SHARE; a shedding one counts MIN_SHARE whatever its ELU.
  assert.equal(appWeight(app('api', [worker(4)]), () => ({ elu: 1, shedding: false })).weight, MIN_SHARE * 100);
  assert.deepEqual(appWeight(app('api', [worker(5)]), () => ({ elu: 0, shedding: true })), { word: 'weight', weight: 10, why: 'api 1/1 ready, 1 shedding' });
  // Never 0% while one serves.
  assert.equal(appWeight(app('api', [worker(6)], { instances: 64 }), () => ({ elu: 1, shedding: false })).weight, 1);
});

test('weight: 0% while every online worker is a lame duck or not ready; down with none online', () => {
  const none = () => null;
  assert.deepEqual(appWeight(app('api', [worker(1, { lame_duck: true }), worker(2, { lame_duck: true })]), none), { word: 'weight', weight: 0, why: 'api stopping (shutdown_delay)' });
  assert.deepEqual(appWeight(app('api', [worker(1, { not_ready: true })]), none), { word: 'weight', weight: 0, why: 'api not ready' });
  // A scale-down's lame duck is out of the slots already; one lame duck among serving workers weighs nothing.
  assert.equal(appWeight(app('api', [worker(1), worker(2, { lame_duck: true })], { instances: 2 }), none).weight, 50);
  assert.deepEqual(appWeight(app('api', [{ pid: null, status: 'stopped' }], { status: 'stopped' }), none), { word: 'down', weight: 0, why: 'api stopped' });
  assert.deepEqual(appWeight(null, none), { word: 'down', weight: 0, why: 'no such app' });
});

test('answer lines: HAProxy\'s words, a description after #, the least app when none is named', () => {
  const apps = [app('api', [worker(1)]), app('jobs', [worker(2)]), app('old', [], { status: 'stopped' })];
  const of = (pid) => ({ elu: pid === 1 ? 0.5 : 0.1, shedding: false });
  assert.equal(agentAnswer(apps, 'api', of), '50% # api 1/1 ready');
  assert.equal(agentAnswer(apps, 'nope', of), 'down # no such app');
  assert.equal(agentAnswer(apps, null, of), '50% # api 1/1 ready', 'stopped apps left out, the least weight wins');
  assert.equal(agentAnswer([apps[2]], null, of), 'down # no app running');
  assert.equal(agentAnswer([app('a#b\nc', [worker(1)])], null, of), '50% # a b c 1/1 ready', 'no # or newline from a name');
});

/** What the listener answers a peer that sends `send` (null: sends nothing, waits). */
function ask(port, send) {
  return new Promise((resolve, reject) => {
    const c = net.connect(port, '127.0.0.1', () => { if (send !== null) c.write(send); });
    let out = '';
    c.on('data', (d) => (out += d));
    c.on('close', () => resolve(out));
    c.on('error', reject);
  });
}

test('listener: one line per connection, then it closes; the name from agent-send, or null after a short wait', async (t) => {
  const asked = [];
  const server = await startAgentCheck('127.0.0.1:0', { answer: (name) => { asked.push(name); return name === 'boom' ? (() => { throw new Error('x\ny'); })() : `up 42% # ${name}`; } });
  t.after(() => server.close());
  const { port } = /** @type {net.AddressInfo} */ (server.address());
  assert.equal(await ask(port, 'api\n'), 'up 42% # api\n');
  assert.equal(await ask(port, 'api\r\n'), 'up 42% # api\n');
  assert.equal(await ask(port, null), 'up 42% # null\n', 'HAProxy without agent-send sends nothing');
  assert.equal(await ask(port, 'x'.repeat(1000)), 'up 42% # null\n', 'a name too long is no name');
  assert.equal(await ask(port, 'boom\n'), 'down # superd could not answer: x y\n');
  assert.deepEqual(asked, ['api', 'api', null, null, 'boom']);
});

// The dashboard's link to a daemon (lib/dashboard/host-link.js) against a real daemon: it
// subscribes only while a page wants it (no page: the daemon sends it nothing), and when
// the daemon goes away it says so and reconnects by itself once a daemon is back.
import test from 'node:test';
import assert from 'node:assert/strict';
import { sandbox } from '../helpers/harness.js';
import { HostLink } from '../../lib/dashboard/host-link.js';

/** Resolves with the first value of `emitter`'s `event` that passes `pred`, or rejects after ms. */
function waitFor(emitter, event, pred, ms, what) {
  return new Promise((resolve, reject) => {
    if (event === 'state' && pred()) return resolve();
    const timer = setTimeout(() => {
      emitter.off(event, on);
      reject(new Error(`no ${what} within ${ms} ms`));
    }, ms);
    const on = (...args) => {
      if (!pred(...args)) return;
      clearTimeout(timer);
      emitter.off(event, on);
      resolve(args[0]);
    };
    emitter.on(event, on);
  });
}

/**
 * A daemon running one idle app with `metrics.interval` = interval, and a HostLink to it,
 * connected (closed when `t` ends); onEvent hears every event the link emits from its start.
 */
async function linkedDaemon(t, interval, onEvent) {
  const box = await sandbox(t);
  box.fixture('idle.js');
  const eco = box.write('eco.yml', `metrics: { interval: ${interval} }\napps:\n  - name: quiet\n    script: idle.js\n    ready_on: spawn\n`);
  await box.start(eco);
  const link = new HostLink({ name: 'local', home: box.home });
  t.after(() => link.close());
  link.on('event', onEvent);
  link.start();
  await waitFor(link, 'state', () => link.state === 'up', 5000, 'connection');
  return { box, eco, link };
}

test('events flow only while wanted; a daemon that goes away is shown down, then back up', async (t) => {
  const events = [];
  const { box, eco, link } = await linkedDaemon(t, '200ms', (m) => events.push(m.event));

  // Connected, no page: five metrics intervals pass with nothing sent.
  await new Promise((r) => setTimeout(r, 1000));
  assert.deepEqual(events, [], 'events reached a link no page wants');

  link.want(true);
  await waitFor(link, 'event', (m) => m.event === 'metrics', 3000, 'metrics event');
  link.want(false);
  // once the unsubscribe is answered, nothing more comes
  await link.client.request('ping');
  events.length = 0;
  await new Promise((r) => setTimeout(r, 1000));
  assert.deepEqual(events, [], 'events after the last page left');

  link.want(true);
  const pid = box.daemonPid();
  process.kill(pid, 'SIGKILL');
  await waitFor(link, 'state', () => link.state === 'down', 5000, 'down state');
  assert.match(link.error, /E_NO_DAEMON/);
  await box.start(eco);
  await waitFor(link, 'state', () => link.state === 'up', 8000, 'reconnection');
  assert.notEqual(link.hello.pid, pid);
  // still wanted: it subscribed again by itself
  await waitFor(link, 'event', (m) => m.event === 'metrics', 3000, 'metrics after reconnecting');
});

test('each deploy record is pushed as it is set: three set back to back reach the link, in order', async (t) => {
  const steps = [];
  // metrics once a minute: a record can only come by its own event
  const { box, link } = await linkedDaemon(t, '60s', (m) => { if (m.event === 'deploy') steps.push(`${m.data.version} ${m.data.state} ${m.data.step}`); });
  link.want(true);
  await waitFor(link, 'tail', () => true, 5000, 'the subscription');
  const client = await box.client();
  t.after(() => client.close());
  for (const step of ['drain', 'reload', 'healthy']) await client.request('deploy-state', { set: { id: 'd1', version: 'v2', state: 'rolling', step } });
  await client.request('deploy-state', { set: { id: 'd1', version: 'v2', state: 'done' } });
  if (steps.length < 4) await waitFor(link, 'event', () => steps.length === 4, 5000, 'four deploy events');
  assert.deepEqual(steps, ['v2 rolling drain', 'v2 rolling reload', 'v2 rolling healthy', 'v2 done done']);
});

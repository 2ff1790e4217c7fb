// HAProxy's agent check against superd (metrics.agent_check): a real HAProxy reads each
// host's answer (`N%`, `0%` while the app stops, `down`), and its runtime API shows
// the weights served (0 while a host stops). Stopping one host under load with shutdown_delay:
// the agent takes it out of the rotation while its workers still serve, and only then do
// they drain: 0 failed requests, with no retries or redispatch in HAProxy's config.
import test from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { sandbox, freePort, lsJson, ROOT } from '../helpers/harness.js';
import { eventually } from '../helpers/wait.js';
import { needHaproxy, startHaproxy, get, load, serversState, balancerConfig } from '../helpers/haproxy.js';
const HELLO = path.join(ROOT, 'examples', 'hello', 'server.js');

/** A superd "host": its own daemon, the hello app on `port`, the agent on `agent`. */
async function host(t, { port, agent, delay }) {
  const box = await sandbox(t);
  await box.start(box.write('eco.yml', [
    `metrics: { agent_check: ${agent}, interval: 250ms }`,
    'apps:',
    '  - name: hello',
    `    script: ${HELLO}`,
    '    instances: 2',
    `    env: { PORT: ${port} }`,
    `    shutdown_delay: ${delay}`,
    '    kill_timeout: 5s',
  ].join('\n')));
  return { box, pids: new Set((await lsJson(box)).apps[0].workers.map((w) => w.pid)) };
}

/**
 * host-a/host-b -> {status, weight, checked, agent} of `show stat`: status UP, DOWN, ...;
 * checked: the agent check ran (agent_status past INI); agent: what HAProxy made of a
 * health word of the agent (only `down` has one).
 */
async function stat(lb) {
  const [head, ...rows] = (await lb.api('show stat')).split('\n');
  const cols = head.replace(/^# /, '').split(',');
  const out = {};
  for (const r of rows) {
    const f = r.split(',');
    const col = (name) => f[cols.indexOf(name)];
    if (col('pxname') === 'apps' && col('svname')?.startsWith('host-')) out[col('svname')] = { status: col('status'), weight: Number(col('weight')), checked: !/^(INI|)$/.test(col('agent_status')), agent: col('last_agt') };
  }
  return out;
}

test('HAProxy agent-check: weights from superd, 0% while a host stops with shutdown_delay, then DOWN; 0 failed requests under load without retries', needHaproxy, async (t) => {
  const [pa, pb, aa, ab, front] = [await freePort(), await freePort(), await freePort(), await freePort(), await freePort()];
  const a = await host(t, { port: pa, agent: aa, delay: '2s' });
  const b = await host(t, { port: pb, agent: ab, delay: '2s' });
  // Weighed by the hosts' agents; no retries, no redispatch.
  const lb = await startHaproxy(t, a.box.dir, balancerConfig(front, 'check inter 1s fall 2 rise 2 weight 100 agent-check agent-inter 200ms pool-purge-delay 500ms', [
    `server host-a 127.0.0.1:${pa} agent-port ${aa} agent-send "hello\\n"`,
    `server host-b 127.0.0.1:${pb} agent-port ${ab} agent-send "hello\\n"`,
  ]));

  // HAProxy reads both agents: each server up, in the ready admin state, weighed 1-100%.
  let seen = null;
  const up = await eventually(async () => {
    const s = await serversState(lb, 'apps');
    seen = await stat(lb);
    const agentsRead = Object.values(seen).filter((st) => st.checked).length === 2;
    return s['host-a']?.op === 2 && s['host-b']?.op === 2 && agentsRead && (await get(false, front)).status === 200 && s;
  }, { timeout: 20000, what: 'both servers UP, their agents read', last: () => `${JSON.stringify(seen)}\n${lb.log}` });
  for (const name of ['host-a', 'host-b']) {
    assert.equal(up[name].admin, 0, `${name}: no admin state (the agent never sends drain/maint/ready)`);
    assert.ok(up[name].weight >= 1 && up[name].weight <= 100, `${name}: weight ${up[name].weight} from the agent`);
  }
  for (const [name, st] of Object.entries(await stat(lb))) {
    assert.match(st.status, /^UP/, name); // "UP 1/2" until a second good check
    assert.ok(st.weight >= 1, `${name}: weight ${st.weight}`);
  }

  const traffic = load(t, front);
  await eventually(() => traffic.results.some((r) => a.pids.has(r.pid)) && traffic.results.some((r) => b.pids.has(r.pid)),
    { timeout: 20000, what: 'both hosts to serve through HAProxy' });

  // Host A stops: its agent says 0% while its workers serve on (shutdown_delay), HAProxy drains it.
  const client = await a.box.client();
  t.after(() => client.close());
  const stopping = client.request('stop', { target: ['hello'] }, { timeout: 0 });
  const drained = await eventually(async () => {
    const s = (await serversState(lb, 'apps'))['host-a'];
    return s.weight === 0 && s.op === 2 && s;
  }, { timeout: 10000, every: 25, what: 'HAProxy to weigh host-a 0 while it is still up', last: () => lb.log });
  assert.equal(drained.admin, 0);
  const drainedStat = (await stat(lb))['host-a'];
  assert.equal(drainedStat.weight, 0, 'show stat: weight 0 (no new requests)');
  assert.match(drainedStat.status, /^UP/, 'still up: it serves what it has');
  const atDrain = traffic.results.length;
  assert.deepEqual((await stopping).apps, ['hello']);
  await eventually(async () => (await serversState(lb, 'apps'))['host-a'].op === 0, { timeout: 10000, what: 'HAProxy to mark host-a DOWN', last: () => lb.log });
  const down = (await stat(lb))['host-a'];
  assert.match(down.status, /^DOWN/);
  assert.match(down.agent, /^via agent : down \(hello (stopping|stopped)\)$/, 'the agent\'s word, as HAProxy read it');
  const atDown = traffic.results.length;
  await eventually(() => traffic.results.length > atDown + 100, { timeout: 20000, what: '100 more requests' });
  const results = await traffic.stop();

  const failed = results.filter((r) => r.error || r.status !== 200);
  t.diagnostic(`${results.length} requests, ${atDrain} before host-a was drained, ${atDown - atDrain} during its shutdown_delay and drain, ${failed.length} failed`);
  assert.deepEqual(failed, [], 'no request failed');
  assert.ok(results.slice(atDown).every((r) => b.pids.has(r.pid)), 'host B answers everything once host A is down');
});

// `super upgrade` of a daemon that answers for its host (metrics.listen's /readyz and
// metrics.agent_check, HAProxy's agent): throughout the handover, on the sockets the two
// daemons share, the host is ready and weighed above 0. The successor answers only once it
// has committed (its workers still starting would say not ready); the old daemon stops
// answering at the handover (its workers stopping would say down).
import test from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import path from 'node:path';
import { sandbox, freePort, httpGet, ROOT } from '../helpers/harness.js';
import { eventually } from '../helpers/wait.js';

const HELLO = path.join(ROOT, 'examples', 'hello', 'server.js');

/** The agent's line for `app`. */
function agentLine(port, app) {
  return new Promise((resolve) => {
    const c = net.connect(port, '127.0.0.1', () => c.write(`${app}\n`));
    let out = '';
    c.on('data', (d) => (out += d));
    c.on('close', () => resolve(out.trim()));
    c.on('error', (err) => resolve(`error ${/** @type {any} */ (err).code}`));
  });
}

test('super upgrade: /readyz and the HAProxy agent say ready throughout the handover', async (t) => {
  const box = await sandbox(t);
  const [port, mport, aport] = [await freePort(), await freePort(), await freePort()];
  await box.start(box.write('eco.yml', [
    `metrics: { listen: 127.0.0.1:${mport}, agent_check: ${aport} }`,
    'apps:',
    '  - name: hello',
    `    script: ${HELLO}`,
    '    instances: 2',
    '    probation: 300ms',
    `    env: { PORT: ${port} }`,
  ].join('\n')));
  await eventually(async () => /^\d+% /.test(await agentLine(aport, 'hello')) && (await httpGet(mport, '/readyz?app=hello')).status === 200,
    { timeout: 20000, what: 'the agent and /readyz to answer' });
  const firstPid = box.daemonPid();

  const answers = [];
  let upgrading = true;
  const probe = (async () => {
    while (upgrading) {
      const [agent, ready] = await Promise.all([agentLine(aport, 'hello'), httpGet(mport, '/readyz?app=hello').then((r) => r.status, (err) => err.code)]);
      answers.push({ agent, ready });
      await new Promise((r) => setTimeout(r, 15));
    }
  })();
  const r = await box.cli(['upgrade']);
  // The old daemon drains its workers after the handover: keep probing until it has exited.
  await eventually(() => { try { process.kill(firstPid, 0); return false; } catch { return true; } }, { timeout: 30000, what: 'the old daemon to exit' });
  upgrading = false;
  await probe;
  assert.equal(r.code, 0, r.stdout + r.stderr);
  assert.notEqual(box.daemonPid(), firstPid);
  t.diagnostic(`${answers.length} probes during the upgrade`);
  assert.ok(answers.length > 20, `${answers.length} probes`);
  assert.deepEqual(answers.filter((a) => !/^[1-9]\d*% # hello 2\/2 ready$/.test(a.agent) || a.ready !== 200), [], 'every answer: ready, weighed above 0');
});

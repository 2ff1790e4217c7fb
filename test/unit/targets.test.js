// What the targets of a command name (lib/master/apps/targets.js): names, ids in
// registration order, namespaces, ecosystem files, `all`, lists; unknown targets refuse all.
import test from 'node:test';
import assert from 'node:assert/strict';
import { resolveTargets } from '../../lib/master/apps/targets.js';
import { appIds, assignId, reclaimIds } from '../../lib/master/apps/app-ids.js';

/** @param {string} name  @param {{namespace?: string, file?: string}} [o] */
const app = (name, { namespace, file } = {}) => ({ name, config: { name, ...(namespace ? { namespace } : {}) }, source: file ? { file } : null });
function registry(...apps) {
  return new Map(apps.map((a) => [a.name, a]));
}
const names = (apps) => apps.map((a) => a.name);

test('names, ids, namespaces, files, all and lists', () => {
  const apps = registry(app('api', { namespace: 'shop', file: '/srv/a.yml' }), app('jobs', { namespace: 'shop', file: '/srv/a.yml' }), app('web', { file: '/srv/b.yml' }));
  assert.deepEqual(names(resolveTargets(apps, 'web')), ['web']);
  assert.deepEqual(names(resolveTargets(apps, '1')), ['jobs']);
  assert.deepEqual(names(resolveTargets(apps, 'shop')), ['api', 'jobs']);
  assert.deepEqual(names(resolveTargets(apps, '/srv/a.yml')), ['api', 'jobs']);
  assert.deepEqual(names(resolveTargets(apps, 'all')), ['api', 'jobs', 'web']);
  assert.deepEqual(names(resolveTargets(apps, ['web', 'api', '0', 'shop'])), ['api', 'jobs', 'web'], 'union, registration order, once each');
  assert.deepEqual(resolveTargets(new Map(), 'all'), []);
});

test('an app named like an id is found by its name first', () => {
  const apps = registry(app('a'), app('0'));
  assert.deepEqual(names(resolveTargets(apps, '0')), ['0']);
  assert.deepEqual(names(resolveTargets(apps, '1')), ['0']);
});

test('ids are stable and never reused', () => {
  const apps = registry(app('a'), app('b'), app('c'));
  assert.deepEqual([...appIds(apps).values()], [0, 1, 2]);
  apps.delete('b');
  apps.set('d', app('d'));
  assert.deepEqual([...appIds(apps)], [['a', 0], ['c', 2], ['d', 3]]);
  apps.set('b', app('b'));
  assert.equal(appIds(apps).get('b'), 4);
});

test('the apps of a start that failed and were removed use up no id', () => {
  const apps = registry(app('a'));
  appIds(apps);
  const fresh = ['b', 'c', 'd'].map((n) => app(n));
  for (const x of fresh) {
    apps.set(x.name, x);
    assignId(apps, x);
  }
  apps.delete('c'); // its first start failed: rolled back
  reclaimIds(apps, fresh, [fresh[1]]);
  assert.deepEqual([...appIds(apps)], [['a', 0], ['b', 1], ['d', 2]], 'the ones that stay close the gap');
  apps.set('e', app('e'));
  assert.equal(appIds(apps).get('e'), 3, 'the next app gets the next id');
  apps.delete('e'); // deleted (it had started): its id is not given again
  apps.set('f', app('f'));
  assert.equal(appIds(apps).get('f'), 4);
});

test('one unknown target refuses the whole list', () => {
  const apps = registry(app('api'));
  for (const [t, re] of /** @type {[string|string[], RegExp][]} */ ([[['api', 'nope'], /no app named "nope"; known apps: api/], ['3', /no app with id 3/], ['/x.yml', /no app was started from \/x\.yml/]])) {
    assert.throws(() => resolveTargets(apps, t), /** @param {any} err */ (err) => err.code === 'E_APP_NOT_FOUND' && re.test(err.message));
  }
  assert.throws(() => resolveTargets(new Map(), 'api'), /no apps are running/);
});

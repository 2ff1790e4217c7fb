// An app's size and config have one owner, the App (lib/master/apps/app.js): its count is
// its slots (or its config's instances while it has none), effectiveConfig() is the config
// it runs with now (what ls, describe, save, upgrade and a reload read), and a scale, a
// watch toggle or its file read again change it only through the App's own methods.
import test from 'node:test';
import assert from 'node:assert/strict';
import { App } from '../../lib/master/apps/app.js';

const log = /** @type {any} */ ({ info() {}, warn() {}, error() {}, debug() {} });
const ctx = { log, home: '/nonexistent' };
/** @type {any} a partial app config: the fields an App reads here */
const file = Object.freeze({ name: 'web', instances: 2, cwd: '/srv/web', watch: Object.freeze([]), autoscale: null });
/** Stand-ins for slots: the count reads only how many there are. */
const slots = (n) => Array.from({ length: n }, (_, index) => /** @type {any} */ ({ index }));

test('the count is the slots, else the config\'s instances; effectiveConfig() carries it', () => {
  const app = new App(file, ctx);
  assert.equal(app.count, 2, 'never started: the config\'s count');
  assert.equal(app.effectiveConfig(), file, 'nothing changed: the config itself');
  app.slots.push(...slots(3)); // a reload that scaled up, say, before the config's count caught up
  assert.equal(app.count, 3);
  assert.deepEqual(app.effectiveConfig(), { ...file, instances: 3 });
  assert.equal(app.config.instances, 2, 'the config is not edited in place');
});

test('nothing outside the App writes its config', () => {
  const app = new App(file, ctx);
  assert.throws(() => {
    /** @type {any} */ (app).config = { ...file, instances: 9 };
  }, TypeError);
  assert.equal(app.config, file);
});

test('a stopped app scaled starts with the new count; the file\'s count is held until the file changes', () => {
  const app = new App(file, ctx);
  app.slots.push(...slots(2));
  app.holdCount();
  app.resize(1);
  assert.equal(app.count, 1);
  assert.equal(app.effectiveConfig().instances, 1);
  assert.equal(app.scaledFrom, 2, 'scaled from what the file said');
  // Its file read again, still saying 2: the scale holds.
  app.takeFileConfig(file);
  assert.equal(app.config.instances, 1);
  // The file now says 4: a reload of it runs 4, and the count is the file's again.
  const changed = Object.freeze({ ...file, instances: 4 });
  assert.equal(app.keptFrom(changed).instances, 4);
  app.reloadedFrom(changed);
  assert.equal(app.scaledFrom, null);
});

test('an autoscaled app\'s count is its autoscaler\'s: a scale holds no file count', () => {
  const auto = Object.freeze({ ...file, instances: 1, autoscale: { min: 1, max: 4 } });
  const app = new App(auto, ctx);
  app.slots.push(...slots(3));
  app.holdCount();
  assert.equal(app.scaledFrom, null);
  assert.equal(app.keptFrom(auto).instances, 3, 'the count within the file\'s bounds');
});

test('watch off then on watches the paths it watched before; a new config each time', () => {
  const watched = Object.freeze({ ...file, watch: Object.freeze(['src']) });
  const app = new App(watched, ctx);
  assert.deepEqual(app.setWatch(false), []);
  assert.deepEqual(app.effectiveConfig().watch, []);
  assert.deepEqual(app.setWatch(true), ['src']);
  assert.notEqual(app.config, watched);
  assert.deepEqual(new App(file, ctx).setWatch(true), ['/srv/web'], 'never watched: its cwd');
});

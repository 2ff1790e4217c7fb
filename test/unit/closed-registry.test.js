// The app registry (lib/master/apps/registry.js) is the only writer of app state: nothing
// else sets an app's busy mark, clientEnv, source or pending config, nor a slot's restart
// count, and its apps are private (others run its commands and read it through registry.reader).
// An app's config, the count a scale holds and the watch paths put aside are the App's own
// (apps/app.js writes them; others call its methods, and read effectiveConfig()).
// It keeps apps, not the daemon's settings: those are read from their owner
// (lib/master/settings/daemon-settings.js), never through the registry or its reader.
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { ROOT } from '../helpers/harness.js';
import { AppRegistry } from '../../lib/master/apps/registry.js';
import { DaemonSettings } from '../../lib/master/settings/daemon-settings.js';

const MASTER = path.join(ROOT, 'lib', 'master');
const APPS = path.join(MASTER, 'apps');
// The registry, and the App and Slot it runs the operations of (their own moves: a pending
// config taken at a start, a slot counting its restarts).
const WRITERS = new Set(['registry.js', 'app.js', 'slot.js'].map((f) => path.join(APPS, f)));
const WRITE = /\.(busy|clientEnv|source|pendingConfig|restarts)\s*(?:=(?!=)|\?\?=|\|\|=|\+\+|\+=)/g;
const APP_OWN = /\bapp\??\.(?:config|scaledFrom|watchOff)\s*(?:=(?!=)|\?\?=|\|\|=)/g;
const READ_APPS = /\bregistry\??\.apps\b/g;
const SETTINGS = ['home', 'log', 'settings', 'daemonPolicy', 'policy', 'loadDefaults', 'control', 'metrics', 'schedulingName'];
const READ_SETTINGS = new RegExp(`\\b(?:registry|reader)\\??\\.(?:${SETTINGS.join('|')})\\b`, 'g');

function sources(dir) {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return sources(p);
    return /\.(m|c)?js$/.test(e.name) ? [p] : [];
  });
}

/** file:line of each match of `re` in the code (comments left out) of `files`. */
function hits(files, re) {
  const found = [];
  for (const file of files) {
    const lines = fs.readFileSync(file, 'utf8').replace(/\/\*[\s\S]*?\*\//g, (c) => c.replace(/[^\n]/g, ' ')).split('\n');
    lines.forEach((line, i) => {
      if (!/^\s*\/\//.test(line) && line.match(re)) found.push(`${path.relative(ROOT, file)}:${i + 1}: ${line.trim()}`);
    });
  }
  return found;
}

test('the scan sees a write and a read when there is one', () => {
  assert.equal('x.busy = 1'.match(WRITE).length, 1);
  assert.equal('app.clientEnv ??= env'.match(WRITE).length, 1);
  assert.equal('s.restarts++'.match(WRITE).length, 1);
  assert.equal('a.source === b'.match(WRITE), null);
  assert.equal('this.registry.apps.values()'.match(READ_APPS).length, 1);
  assert.equal('registry.daemonPolicy.allowed, home: this.registry.home'.match(READ_SETTINGS).length, 2);
  assert.equal('this.reader.home'.match(READ_SETTINGS).length, 1);
  assert.equal('registry.reload(name)'.match(READ_SETTINGS), null);
  assert.equal('app.config = { ...c, watch: [] }; app.scaledFrom ??= 2'.match(APP_OWN).length, 2);
  assert.equal('app.config === c'.match(APP_OWN), null);
  assert.ok(hits([...WRITERS], WRITE).length > 0, 'the registry itself writes them');
});

test('nothing in lib/master but the registry writes an app\'s busy, clientEnv, source or pendingConfig, or a slot\'s restarts', () => {
  assert.deepEqual(hits(sources(MASTER).filter((f) => !WRITERS.has(f)), WRITE), []);
});

test('nothing reads the registry\'s apps: they are private', () => {
  assert.deepEqual(hits(sources(path.join(ROOT, 'lib')), READ_APPS), []);
  // A registry that starts no app needs no more of a logger or a metrics store than this.
  const log = /** @type {any} */ ({ info() {}, warn() {}, error() {}, debug() {} });
  const settings = new DaemonSettings({ home: '/nonexistent', log, metrics: /** @type {any} */ ({ interval: 1000 }), control: /** @type {any} */ (null) });
  const registry = new AppRegistry({ settings, agentPath: 'agent.cjs' });
  assert.equal(/** @type {any} */ (registry).apps, undefined);
  assert.deepEqual(Object.keys(registry).filter((k) => /apps/i.test(k)), []);
  assert.equal(registry.reader.count(), 0);
});

test('nothing reads the daemon\'s settings through the registry: they have their own owner', () => {
  assert.deepEqual(hits(sources(path.join(ROOT, 'lib')), READ_SETTINGS), []);
  const log = /** @type {any} */ ({ info() {}, warn() {}, error() {}, debug() {} });
  const settings = new DaemonSettings({ home: '/nonexistent', log, metrics: /** @type {any} */ ({ interval: 1000 }), control: /** @type {any} */ (null) });
  const registry = new AppRegistry({ settings, agentPath: 'agent.cjs' });
  assert.deepEqual([registry, registry.reader].flatMap((o) => Object.keys(o)).filter((k) => SETTINGS.includes(k)), []);
});

test('nothing in lib/master but the App writes an app\'s config, held count or put-aside watch paths', () => {
  assert.deepEqual(hits(sources(MASTER).filter((f) => f !== path.join(APPS, 'app.js')), APP_OWN), []);
});

// PM2's keys: other names land in superd's keys, honoured keys normalize, PM2-only keys
// are one-line warnings, and typos still get (right) suggestions.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { loadEcosystemText } from '../../lib/config/index.js';
import { problems } from '../helpers/config-problems.js';
import { ALIASES, PM2_ONLY, PM2_APP_KEYS, PM2_TOP_KEYS } from '../../lib/config/pm2-keys.js';
import { ecosystemSchema } from '../../lib/config/schema-check.js';

const dir = fileURLToPath(new URL('../fixtures/good-config/', import.meta.url));
const file = path.join(dir, 'eco.yml');
const load = (yaml, options) => loadEcosystemText(yaml, file, { cpus: 2, ...options });
const app = (keys, options) => load(`apps:\n  - name: a\n    script: app.js\n${keys.split('\n').map((l) => `    ${l}`).join('\n')}\n`, options);

test('PM2 spellings of exec_mode', () => {
  assert.equal(app('exec_mode: cluster_mode').apps[0].exec_mode, 'cluster');
  assert.equal(app('exec_mode: fork_mode').apps[0].exec_mode, 'fork');
});

test('log aliases: output, error, log/log_file, combine_logs', () => {
  const a = app('output: out.log\nerror: err.log\ncombine_logs: false').apps[0];
  assert.deepEqual([a.out_file, a.error_file, a.merge_logs], [path.join(dir, 'out.log'), path.join(dir, 'err.log'), false]);
  const combined = app('log_file: all.log').apps[0];
  assert.deepEqual([combined.out_file, combined.error_file], [path.join(dir, 'all.log'), path.join(dir, 'all.log')]);
  assert.equal(app('log: all.log').apps[0].out_file, path.join(dir, 'all.log'));
  const both = app('log: all.log\nout_file: o.log');
  assert.equal(both.apps[0].error_file, null);
  assert.deepEqual(both.warnings, [`${file}:4:5: apps[0].log: ignored: out_file or error_file is given too, and superd writes each stream to one file`]);
});

test('two names for one key: refused in a file written for superd, PM2\'s choice with a warning in a PM2 file', () => {
  assert.deepEqual(problems(() => app('out_file: a.log\noutput: b.log\nready_on: listen')), [`${file}:5:5: apps[0].output: says the same as out_file (PM2's other name for out_file); keep one of the two`]);
  const pm2 = app('out_file: a.log\noutput: b.log');
  assert.equal(pm2.apps[0].out_file, path.join(dir, 'a.log'));
  assert.deepEqual(pm2.warnings, [`${file}:5:5: apps[0].output: ignored: out_file is given too, with another value, and PM2 uses out_file`]);
});

test('interpreter_args is node_args; source_map_support adds --enable-source-maps', () => {
  assert.deepEqual(app('interpreter_args: --max-old-space-size=128').apps[0].node_args, ['--max-old-space-size=128']);
  const a = app('source_map_support: true\nnode_args: [--no-warnings]').apps[0];
  assert.deepEqual([a.node_args, a.source_map_support], [['--no-warnings', '--enable-source-maps'], true]);
  assert.deepEqual(app('source_map_support: true\ndisable_source_map_support: true').apps[0].node_args, []);
});

test('autostart, increment_var, port, cron_restart, namespace', () => {
  const a = app('autostart: false\nincrement_var: PORT\nport: 3000\ncron_restart: "*/10 * * * * *"\nnamespace: backend').apps[0];
  assert.deepEqual([a.autostart, a.increment_var, a.env, a.cron_restart, a.namespace], [false, 'PORT', { PORT: '3000' }, '*/10 * * * * *', 'backend']);
  assert.equal(app('cron: 0 3 * * *').apps[0].cron_restart, '0 3 * * *');
  const [cron] = problems(() => app('cron_restart: every day'));
  assert.match(cron, /eco\.yml:4:19: apps\[0\]\.cron_restart: not a cron expression \(.+\); write 5 fields/);
  // croner reads a 7th field as a year; the docs promise 5 or 6.
  const [seven] = problems(() => app('cron_restart: "0 0 0 1 1 * 2030"'));
  assert.match(seven, /apps\[0\]\.cron_restart: not a cron expression \(7 fields; superd takes 5, or 6 with seconds first, and no year field\)/);
  assert.deepEqual(problems(() => app('increment_var: PORT\nenv: { PORT: eighty }')), [`${file}:4:20: apps[0].increment_var: PORT is "eighty" in env, not a whole number to increment; set env.PORT to a number such as 3000`]);
});

test('interpreter: any executable on PATH runs the script in fork mode; cluster mode is refused (superd\'s file) or runs Node (PM2\'s)', () => {
  const py = load('apps:\n  - name: py\n    script: app.js\n    interpreter: sh\n').apps[0];
  assert.ok(path.isAbsolute(py.interpreter) && /sh$/.test(py.interpreter), py.interpreter);
  assert.equal(py.exec_mode, 'fork');
  assert.deepEqual(problems(() => app('interpreter: sh\nexec_mode: cluster\nready_on: listen')), [`${file}:5:16: apps[0].exec_mode: cluster mode needs a Node script (interpreter is sh); use exec_mode: fork`]);
  // A PM2 file: PM2's cluster workers are Node whatever interpreter says (ts-node, bash): superd runs Node too, and says so.
  const pm2 = app('interpreter: sh\nexec_mode: cluster');
  assert.deepEqual([pm2.apps[0].interpreter, pm2.apps[0].exec_mode], ['node', 'cluster']);
  assert.match(pm2.warnings[0], /apps\[0\]\.interpreter: ignored in cluster mode, as PM2 ignores it: cluster workers run the script with Node/);
  const [missing] = problems(() => app('interpreter: no-such-interpreter-xyz'));
  assert.match(missing, /apps\[0\]\.interpreter: not found in cwd .* nor on PATH: no-such-interpreter-xyz/);
  // The daemon's own node, named by path, is just `node`.
  const node = app(`interpreter: ${process.execPath}`).apps[0];
  assert.deepEqual([node.interpreter, node.node_path, node.exec_mode], ['node', null, 'cluster']);
});

test('uid/gid: names resolved as root, refused when the daemon is not root', () => {
  const root = app('uid: root', { isRoot: true }).apps[0];
  assert.deepEqual([root.uid, root.gid], [0, 0]);
  assert.deepEqual(problems(() => app('uid: 1000', { isRoot: false })), [`${file}:4:10: apps[0].uid: needs the daemon to run as root (it runs as uid ${process.getuid()}); remove uid/gid, or run superd as root`]);
  assert.deepEqual(problems(() => app('user: no-such-user-xyz', { isRoot: true })), [`${file}:4:11: apps[0].user: no user named "no-such-user-xyz" in /etc/passwd; give an existing user name or a uid number`]);
});

test('PM2-only keys: one warning line each, naming the key; the file is accepted', () => {
  const eco = load(`apps:
  - name: a
    script: app.js
    vizion: false
    pmx: true
    post_update: [npm install]
deploy:
  production: { user: node, host: example.com, ref: origin/main, repo: git@example.com:x.git, path: /srv }
`);
  assert.deepEqual(eco.warnings, [
    `${file}:7:1: deploy: PM2-only key (pm2 deploy; keep your deploy tool, then \`super reload <app>\`): ignored`,
    `${file}:4:5: apps[0].vizion: PM2-only key (PM2's versioning metadata): ignored`,
    `${file}:5:5: apps[0].pmx: PM2-only key (PM2's monitoring agent; superd's agent reports metrics itself): ignored`,
    `${file}:6:5: apps[0].post_update: PM2-only key (commands PM2's dashboard runs after a pull): ignored`,
  ]);
  for (const key of ['vizion', 'pmx', 'automation', 'post_update', 'force']) assert.ok(PM2_ONLY.app[key], key);
});

test('every key of PM2\'s own schema is known: honoured, another name, or PM2-only', () => {
  const pm2 = JSON.parse(fs.readFileSync(new URL('../../node_modules/pm2/lib/API/schema.json', import.meta.url), 'utf8'));
  const known = (k) => {
    try {
      load(`apps:\n  - name: a\n    script: app.js\n    ${k}: null\n`);
    } catch (err) {
      return !err.details.problems.some((p) => p.includes('unknown key'));
    }
    return true;
  };
  // PM2's `env` may be a string and `instances` "max": checked elsewhere; here only that the names are known.
  const unknown = Object.keys(pm2).filter((k) => !k.startsWith('^') && !known(k));
  assert.deepEqual(unknown, []);
  assert.equal(ALIASES.interpreter_args, 'node_args');
});

test('typos get the right suggestion; PM2 keys are never "did you mean" another key', () => {
  assert.deepEqual(problems(() => app('autorestrat: true')), [`${file}:4:5: apps[0].autorestrat: unknown key; did you mean "autorestart"?`]);
  assert.deepEqual(problems(() => app('interpeter_args: --x')), [`${file}:4:5: apps[0].interpeter_args: unknown key; did you mean "interpreter_args"?`]);
  // interpreter_args and autostart are keys now: accepted, no hint towards interpreter/autorestart
  assert.doesNotThrow(() => app('interpreter_args: --x\nautostart: true'));
  // a typo never points at a PM2-only key (it would be ignored)
  assert.deepEqual(problems(() => app('vizon: true')), [`${file}:4:5: apps[0].vizon: unknown key; remove it, or see config/schema.json for the keys`]);
});

test('one table of PM2\'s keys: config/schema.json and docs/pm2.md say what lib/config/pm2-keys.js says', () => {
  const schema = ecosystemSchema();
  const app = schema.$defs.app.properties;
  const marked = (props, mark) => Object.fromEntries(Object.keys(props).filter((k) => props[k][mark]).map((k) => [k, props[k][mark]]).sort());
  const sorted = (o) => Object.fromEntries(Object.entries(o).sort());
  assert.deepEqual(marked(app, 'x-alias-of'), sorted(ALIASES));
  assert.deepEqual(marked(app, 'x-pm2-only'), sorted(PM2_ONLY.app));
  assert.deepEqual(marked(schema.properties, 'x-pm2-only'), sorted(PM2_ONLY.top));
  for (const [key, why] of Object.entries({ ...PM2_ONLY.app, ...PM2_ONLY.top })) {
    const props = PM2_ONLY.top[key] ? schema.properties : app;
    assert.equal(props[key].description, `PM2 only (${why}): accepted and ignored, with a warning.`, key);
  }
  // docs/pm2.md's table of PM2-only keys: a row per key (with its other names), the reason as the table says it.
  const docs = fs.readFileSync(new URL('../../docs/pm2.md', import.meta.url), 'utf8');
  const section = docs.slice(docs.indexOf('### PM2-only keys'), docs.indexOf('\n## ', docs.indexOf('### PM2-only keys')));
  const rows = [...section.matchAll(/^\| (?:top-level )?((?:`[^`]+`(?:, )?)+) \| (.+) \|$/gm)];
  const documented = Object.fromEntries(rows.flatMap((m) => [...m[1].matchAll(/`([^`]+)`/g)].map((k) => [k[1], m[2]])));
  assert.deepEqual(sorted(documented), sorted({ ...PM2_ONLY.app, ...PM2_ONLY.top }));
  assert.ok(Object.keys(PM2_APP_KEYS).length > 60 && PM2_TOP_KEYS.deploy.only, 'the table holds every PM2 key');
});

// One PM2 app (ecosystem-file form) -> one superd app, plus a line for each thing that
// could not be carried over. Pure: no file system, no process state.
import path from 'node:path';
import { parseDuration, parseSize } from '../config/index.js';
import { PM2_NAME_TO_SUPERD, PM2_ONLY } from '../config/pm2-keys.js';
import { superdAppKeys } from './superd-keys.js';

// config/schema.json's rule for a name: 1 to 64 characters, no control character nor `/`,
// not `all`, a bare number (an id) or a leading `-` (an option).
const NAME = /^(?!all$)(?![0-9]+$)(?![-/])[^\p{Cc}\p{Cf}\p{Zl}\p{Zp}]{1,64}$/u;
const DURATIONS = ['min_uptime', 'restart_delay', 'exp_backoff_restart_delay', 'kill_timeout', 'listen_timeout', 'watch_delay'];
const BOOLEANS = ['wait_ready', 'autorestart', 'shutdown_with_message', 'disable_logs', 'time', 'merge_logs', 'source_map_support'];
const JS = /\.[cm]?js$/;
// Keys written first, in this order; the others follow in the order PM2 had them.
const ORDER = ['name', 'namespace', 'script', 'args', 'cwd', 'exec_mode', 'instances', 'interpreter', 'node_args', 'env'];

/**
 * @param {object} raw  the PM2 app
 * @param {object} ctx
 * @param {string} ctx.baseDir  directory PM2 resolved the app's relative cwd against
 * @param {string} ctx.outDir   directory of the ecosystem.yml being written
 * @returns {{ app: object, notes: string[] }}
 */
export function mapApp(raw, { baseDir, outDir }) {
  const pm2 = canonical(raw);
  const name = appName(pm2);
  const notes = [];
  const note = (key, why) => notes.push(`${name}: ${key}: ${why}`);
  if (pm2.name !== undefined && pm2.name !== name) note('name', `"${pm2.name}" is not a superd app name; renamed "${name}"`);

  const app = { name };
  for (const [key, value] of Object.entries(pm2)) {
    if (key === 'name' || value === undefined || value === null) continue;
    const carry = CARRY[key];
    if (carry) carry(value, app, (why) => note(key, why), { pm2, baseDir, outDir });
    else if (PM2_ONLY.app[key]) note(key, `left out: ${PM2_ONLY.app[key]}`);
    else if (superdAppKeys.has(key) || /^env_[A-Za-z0-9_-]+$/.test(key)) app[key] = key.startsWith('env_') ? envBlock(value, (why) => note(key, why)) : value;
    else note(key, 'left out: neither PM2 nor superd knows this key');
  }
  if (app.exec_mode === undefined) app.exec_mode = pm2.instances !== undefined && runsOnNode(pm2) ? 'cluster' : 'fork'; // PM2's default, not superd's
  if (pm2.port !== undefined && app.env?.PORT === undefined) app.env = { ...app.env, PORT: String(pm2.port) };
  if (app.env && Object.keys(app.env).length === 0) delete app.env;
  return { app: ordered(app), notes };
}

/** PM2's alternative spellings replaced by the key they stand for (the canonical one wins). */
function canonical(raw) {
  const out = {};
  for (const [key, value] of Object.entries(raw)) {
    const key2 = PM2_NAME_TO_SUPERD[key] ?? key;
    if (key2 !== key && key2 in raw) continue;
    out[key2] = value;
  }
  return out;
}

/** PM2 names an unnamed app after its script's file name. */
function appName(pm2) {
  const given = typeof pm2.name === 'string' && pm2.name ? pm2.name : path.basename(String(pm2.script ?? 'app'), path.extname(String(pm2.script ?? '')));
  if (NAME.test(given)) return given;
  const fixed = [...given.replace(/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]+/gu, '-').replace(/^[-/]+/, '')].slice(0, 64).join('');
  return NAME.test(fixed) ? fixed : `app-${fixed}`.slice(0, 64);
}

const keep = (key) => (v, app) => (app[key] = v);
const unlessDefault = (key, byDefault) => (v, app) => {
  if (v !== byDefault) app[key] = v;
};

/** PM2 runs an app with instances in cluster mode when Node runs it (superd's cluster mode is Node's only). */
const runsOnNode = (pm2) => (pm2.interpreter === undefined ? JS.test(String(pm2.script ?? '')) : /node$/.test(path.basename(String(pm2.interpreter))));

const CARRY = {
  script: keep('script'),
  args: (v, app) => (app.args = Array.isArray(v) ? v.map(String) : String(v)),
  cwd(v, app, _note, { baseDir, outDir }) {
    // superd resolves a relative cwd against the ecosystem file's directory.
    const rel = path.relative(outDir, path.resolve(baseDir, String(v)));
    if (rel) app.cwd = path.isAbsolute(String(v)) ? String(v) : rel;
  },
  instances(v, app, note) {
    const n = typeof v === 'string' && /^-?\d+$/.test(v.trim()) ? Number(v) : v;
    if (n === 'max' || Number.isInteger(n)) app.instances = n;
    else note(`"${v}" is not a number of instances; left out (1 worker)`);
  },
  exec_mode(v, app, note) {
    const mode = { cluster_mode: 'cluster', cluster: 'cluster', fork_mode: 'fork', fork: 'fork' }[v];
    if (mode) app.exec_mode = mode;
    else note(`"${v}" is not an exec mode; left out`);
  },
  interpreter(v, app, _note, { pm2 }) {
    // superd runs a .js/.mjs/.cjs script with its own Node; say `node` only where it must.
    if (v === 'node' && JS.test(String(pm2.script ?? ''))) return;
    app.interpreter = v;
  },
  node_args(v, app) {
    if (Array.isArray(v) ? v.length : String(v).trim()) app.node_args = Array.isArray(v) ? v.map(String) : String(v);
  },
  env: (v, app, note) => (app.env = { ...envBlock(v, note), ...app.env }),
  instance_var: unlessDefault('instance_var', 'NODE_APP_INSTANCE'),
  namespace: unlessDefault('namespace', 'default'),
  autostart: unlessDefault('autostart', true),
  watch: unlessDefault('watch', false),
  max_memory_restart(v, app, note) {
    const bytes = parseSize(v);
    if (bytes === undefined) note(`"${v}" is not a size superd reads (like 300M); left out`);
    else app.max_memory_restart = typeof v === 'number' ? humanSize(v) : v;
  },
  max_restarts(v, app, note) {
    if (Number.isInteger(Number(v)) && Number(v) >= 0) app.max_restarts = Number(v);
    else note(`"${v}" is not a count; left out`);
  },
  port: () => {}, // becomes env PORT, as in PM2 (below)
  log_type(v, app, note) {
    // superd's `json` is pino's line; PM2's json fields are superd's `pm2-json`.
    app.log_type = v === 'json' ? 'pm2-json' : v;
    if (v === 'json') note('"json" written as "pm2-json" (PM2\'s fields; superd\'s "json" is pino\'s line)');
  },
  ...Object.fromEntries(DURATIONS.map((key) => [key, (v, app, note) => {
    if (parseDuration(v) === undefined) note(`"${v}" is not a duration superd reads (ms, or 500ms, 5s, 2m, 1h); left out`);
    else app[key] = v;
  }])),
  ...Object.fromEntries(BOOLEANS.map((key) => [key, (v, app, note) => {
    const b = v === 'true' ? true : v === 'false' ? false : v;
    if (typeof b === 'boolean') app[key] = b;
    else note(`"${v}" is not true or false; left out`);
  }])),
};

/** An env block keeps the values an environment variable can hold. */
function envBlock(block, note) {
  if (!block || typeof block !== 'object' || Array.isArray(block)) {
    note('not a mapping of variables; left out');
    return {};
  }
  const out = {};
  for (const [name, value] of Object.entries(block)) {
    if (value === null || ['string', 'number', 'boolean'].includes(typeof value)) out[name] = value;
    else note(`${name}: an object is not an environment variable value; left out (JSON.stringify it in the app's config)`);
  }
  return out;
}

/** 209715200 -> "200M": PM2 dumps sizes in bytes. */
function humanSize(bytes) {
  for (const [unit, size] of /** @type {[string, number][]} */ ([['G', 1024 ** 3], ['M', 1024 ** 2], ['K', 1024]])) {
    if (bytes >= size && bytes % size === 0) return `${bytes / size}${unit}`;
  }
  return bytes;
}

function ordered(app) {
  const out = {};
  for (const key of ORDER) if (key in app) out[key] = app[key];
  return Object.assign(out, app);
}

// Good files normalize to exactly the object the daemon consumes.

import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { loadEcosystem } from '../../lib/config/index.js';
import { superHome } from '../../lib/home.js';

const dir = fileURLToPath(new URL('../fixtures/good-config/', import.meta.url));
const at = (...p) => path.join(dir, ...p);

const DEFAULT_DAEMON = {
  scheduling: 'auto',
  scheduling_set: false,
  control: { listen: null, tls: null, origins: [] },
  logs: { dir: null, max_size: null, retain: null, compress: false },
  metrics: { listen: null, interval: 1000, agent_check: null },
  cpu_affinity: null,
};

test('minimal.yml: every default', async () => {
  const eco = await loadEcosystem(at('minimal.yml'), { cpus: 4 });
  assert.deepEqual(eco, {
    file: at('minimal.yml'),
    daemon: DEFAULT_DAEMON,
    apps: [{
      name: 'web',
      script: at('app.js'),
      args: [],
      cwd: dir.replace(/\/$/, ''),
      instances: 1,
      instances_spec: 1,
      exec_mode: 'cluster',
      interpreter: 'node',
      node_path: null,
      node_args: [],
      source_map_support: false,
      env: {},
      filter_env: false,
      instance_var: 'NODE_APP_INSTANCE',
      increment_var: null,
      autorestart: true,
      autostart: true,
      cron_restart: null,
      namespace: 'default',
      uid: null,
      gid: null,
      allow_privileged_ports: false,
      share_port: false,
      stop_exit_codes: [],
      min_uptime: 1000,
      max_restarts: 16,
      restart_delay: 0,
      exp_backoff_restart_delay: 0,
      restart_delay_set: false,
      kill_timeout: 1600,
      kill_signal: 'SIGINT',
      listen_timeout: 8000,
      wait_ready: false,
      ready_on: 'listen',
      reload_ready_on: null,
      watch: [],
      ignore_watch: [],
      watch_delay: 1000,
      watch_options: null,
      max_memory_restart: null,
      max_requests: null,
      max_requests_jitter: 0,
      out_file: null,
      error_file: null,
      merge_logs: true,
      log_date_format: null,
      log_type: 'raw',
      disable_logs: false,
      time: false,
      log_max_size: null,
      log_retain: null,
      log_rotate: null,
      log_retain_days: null,
      cpu_affinity: null,
      reload_parallel: 1,
      probation: 250,
      reload_strategy: 'rolling',
      max_surge: '100%',
      max_unavailable: 0,
      retire_interval: null,
      drain_timeout: 10000,
      shutdown_delay: 0,
      shutdown_with_message: false,
      metrics_interval: null,
      unresponsive_timeout: null,
      profile_on_stall: null,
      autoscale: null,
      sticky: null,
      overload: null,
      source: { file: at('minimal.yml'), line: 3 },
      logs: {
        disabled: false, dir: path.join(superHome(), 'logs'), createDir: true, createFileDirs: true,
        out: path.join(superHome(), 'logs', 'web-out.log'), err: path.join(superHome(), 'logs', 'web-err.log'),
        perSlot: false, type: 'raw', date: null, maxSize: null, retain: 5, compress: false, retainDays: null, rotate: null, dateBy: null,
      },
    }],
    warnings: [],
    cpu_note: null, // cpus given: no cgroup reading
  });
});

test('a normalized ecosystem is deeply frozen: a change is a new object', async () => {
  const eco = await loadEcosystem(at('full.yml'), { cpus: 4 });
  for (const o of [eco, eco.daemon, eco.daemon.logs, eco.apps, eco.apps[0], eco.apps[0].env, eco.apps[0].args, eco.apps[0].logs]) {
    assert.ok(Object.isFrozen(o));
  }
  assert.throws(() => { eco.apps[0].instances = 9; }, TypeError);
  assert.equal({ ...eco.apps[0], instances: 9 }.instances, 9);
});

test('log paths are derived from SUPER_HOME given as home, and nothing is created', async () => {
  const home = path.join(dir, 'no-such-home');
  const eco = await loadEcosystem(at('minimal.yml'), { cpus: 1, home });
  assert.equal(eco.apps[0].logs.out, path.join(home, 'logs', 'web-out.log'));
  assert.equal(eco.apps[0].logs.createDir, true);
  assert.equal(fs.existsSync(home), false);
});

test('full.yml: every key, with --env production and 4 CPUs', async () => {
  const eco = await loadEcosystem(at('full.yml'), { cpus: 4, env: 'production' });
  assert.equal(eco.file, at('full.yml'));
  assert.deepEqual(eco.daemon, {
    scheduling: 'os',
    scheduling_set: true,
    control: {
      listen: '127.0.0.1:9615',
      tls: { cert: at('certs/cert.pem'), key: '/etc/superd/key.pem' },
      origins: ['https://ops.example.com'],
    },
    logs: { dir: at('logs'), max_size: 10 * 1024 ** 2, retain: 5, compress: true },
    metrics: { listen: '[::1]:9616', interval: 2000, agent_check: '127.0.0.1:9617' },
    cpu_affinity: '0',
  });
  assert.deepEqual(eco.apps[0], {
    name: 'api',
    script: at('api/server.mjs'),
    args: ['--port', '8080', '--name', 'my api'],
    cwd: at('api'),
    instances: 3,
    instances_spec: -1,
    exec_mode: 'cluster',
    interpreter: 'node',
    node_path: null,
    node_args: ['--max-old-space-size=512', '--enable-source-maps'],
    source_map_support: true,
    env: { NODE_ENV: 'production', PORT: '8080', DEBUG: 'false', EMPTY: '' },
    filter_env: ['AWS_', 'SECRET'],
    instance_var: 'INSTANCE_ID',
    increment_var: 'PORT',
    autorestart: false,
    autostart: false,
    cron_restart: '0 3 * * *',
    namespace: 'backend',
    uid: null,
    gid: null,
    allow_privileged_ports: false,
    share_port: false,
    stop_exit_codes: [0],
    min_uptime: 5000,
    max_restarts: 3,
    restart_delay: 250,
    exp_backoff_restart_delay: 100,
    restart_delay_set: true,
    kill_timeout: 1500,
    kill_signal: 'SIGTERM',
    listen_timeout: 120000,
    wait_ready: true,
    ready_on: 'ready',
    reload_ready_on: null,
    watch: [at('api/src'), at('common')],
    ignore_watch: ['node_modules'],
    watch_delay: 500,
    watch_options: { usePolling: true, interval: 1000 },
    max_memory_restart: 300 * 1024 ** 2,
    max_requests: 10000,
    max_requests_jitter: 500,
    out_file: at('api/logs/out.log'),
    error_file: null,
    merge_logs: false,
    log_date_format: 'YYYY-MM-DD HH:mm:ss',
    log_type: 'json',
    disable_logs: false,
    time: true,
    log_max_size: 1024 ** 3,
    log_retain: 2,
    log_rotate: null,
    log_retain_days: null,
    cpu_affinity: { 0: [0], 1: '2-3' },
    reload_parallel: 2,
    probation: 3600000,
    reload_strategy: 'surge',
    max_surge: '25%',
    max_unavailable: 1,
    retire_interval: 200,
    drain_timeout: 30000,
    shutdown_delay: 3000,
    shutdown_with_message: true,
    metrics_interval: 5000,
    unresponsive_timeout: 10000,
    profile_on_stall: { loop_delay: 200, duration: 5000, keep: 3, cooldown: 60000 },
    autoscale: null,
    sticky: { by: 'cookie', cookie: 'sess' },
    overload: { max_loop_delay: 100, max_inflight: 64, max_queue_wait: null, status: 503, retry_after: 2000, request_timeout: 30000 },
    source: { file: at('full.yml'), line: 19 },
    logs: {
      disabled: false, dir: at('logs'), createDir: false, out: at('api/logs/out.log'), err: at('logs/api-err.log'),
      perSlot: true, type: 'json', date: 'YYYY-MM-DD HH:mm:ss', maxSize: 1024 ** 3, retain: 2, compress: true, retainDays: null, rotate: null, dateBy: null,
    },
  });
  const tool = eco.apps[1];
  assert.deepEqual(
    { script: tool.script, args: tool.args, interpreter: tool.interpreter, exec_mode: tool.exec_mode, ready_on: tool.ready_on,
      stop_exit_codes: tool.stop_exit_codes, watch: tool.watch, env: tool.env, source: tool.source },
    { script: '/bin/sh', args: ['-c', 'exit 0'], interpreter: 'none', exec_mode: 'fork', ready_on: 'spawn',
      stop_exit_codes: [0, 2], watch: [dir.replace(/\/$/, '')], env: {}, source: { file: at('full.yml'), line: 84 } },
  );
  assert.deepEqual(JSON.parse(JSON.stringify(eco)), eco, 'the result is plain JSON');
});

test('full.yml: without --env, env stays the base env', async () => {
  const eco = await loadEcosystem(at('full.yml'), { cpus: 4 });
  assert.deepEqual(eco.apps[0].env, { NODE_ENV: 'development', PORT: '8080', DEBUG: 'false', EMPTY: '' });
});

test('anchors.yml: x- keys hold anchors, << merges them, local keys win', async () => {
  const eco = await loadEcosystem(at('anchors.yml'), { cpus: 8 });
  assert.deepEqual(
    eco.apps.map((a) => [a.name, a.script, a.instances, a.instances_spec, a.env, a.source.line]),
    [
      ['a', at('app.js'), 2, 2, { LOG_LEVEL: 'info' }, 8],
      ['b', at('app.js'), 8, 'max', { LOG_LEVEL: 'info' }, 10],
    ],
  );
});

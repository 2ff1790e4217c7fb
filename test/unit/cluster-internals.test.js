// The boot check of the node:cluster internals superd relies on
// (lib/master/process/cluster-internals/): this Node passes it; a changed shape is named,
// and the daemon refuses to boot on it with E_NODE_INTERNALS, creating nothing.
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import cluster from 'node:cluster';
import net from 'node:net';
import childProcess from 'node:child_process';
import { spawnSync } from 'node:child_process';
import { clusterInternalsProblems } from '../../lib/master/process/cluster-internals/index.js';
import { SUPER, sandbox } from '../helpers/harness.js';

test('this Node has every internal the seam relies on', () => {
  assert.deepEqual(clusterInternalsProblems(), []);
});

test('each changed shape is named', () => {
  // A Worker whose disconnect() no longer sends {act: 'disconnect'} (the handoff guard holds it).
  const Worker = /** @type {any} Node's typings leave the Worker class out */ (cluster).Worker;
  const Changed = class extends Worker {};
  Changed.prototype.disconnect = function disconnect() {
    this.process.disconnect();
    return this;
  };
  const changed = (what, node) => assert.deepEqual(clusterInternalsProblems(node).filter((p) => p.includes(what)).length, 1, `${what}: ${clusterInternalsProblems(node)}`);
  changed('Worker.prototype.disconnect', { cluster: Object.assign(Object.create(cluster), { Worker: Changed }) });
  // cluster.fork() that no longer places cluster's own listeners on the worker's process.
  changed('\'internalMessage\' listener', { cluster: Object.assign(Object.create(cluster), { fork: () => null }) });
  // child_process.fork() that takes its program from elsewhere than process.execPath.
  changed('process.execPath when called', { childProcess: { ...childProcess, fork: (file, args, o) => childProcess.spawn(o.node, [file, ...args]) } });
  // ... unless it wraps the original as tracing agents do (shimmer's __original).
  const shim = Object.assign((file, args, o) => childProcess.fork(file, args, o), { __original: childProcess.fork });
  assert.deepEqual(clusterInternalsProblems({ childProcess: { ...childProcess, fork: shim } }), []);
  // process.execPath frozen.
  const proc = Object.defineProperty(Object.create(process), 'execPath', { value: process.execPath, writable: false });
  changed('process.execPath is writable', { proc });
  // net.Server.prototype.listen not patchable.
  const server = Object.freeze({ listen() {} });
  changed('net.Server.prototype.listen', { net: { Server: { prototype: server } } });
  // net.Socket that no longer wraps a given handle (sticky sessions read a connection's head through one).
  changed('options.handle', { net: { Server: net.Server, Socket: function Socket() {} } });
  // A worker process, not the primary.
  changed('cluster is the primary', { cluster: Object.assign(Object.create(cluster), { isPrimary: false }) });
});

// The daemon really boots; only Worker.prototype.disconnect is changed, before it loads.
const DOCTORED = `data:text/javascript,${encodeURIComponent("import cluster from 'node:cluster'; cluster.Worker.prototype.disconnect = function disconnect() { return this; };")}`;

test('a daemon on a Node whose cluster changed: E_NODE_INTERNALS, exit 1, nothing started', async (t) => {
  const box = await sandbox(t);
  const r = spawnSync(process.execPath, ['--import', DOCTORED, SUPER, 'daemon', '--foreground'], {
    encoding: 'utf8',
    env: { ...process.env, SUPER_HOME: box.home },
    timeout: 30000,
  });
  assert.equal(r.status, 1, r.stderr);
  assert.match(r.stderr, new RegExp(`^superd: E_NODE_INTERNALS: Node ${process.version.replace(/\./g, '\\.')} changed what superd relies on in node:cluster: Worker\\.prototype\\.disconnect \\(primary\\) sends \\{act: 'disconnect'\\} and sets exitedAfterDisconnect no longer holds`));
  assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
  assert.equal(fs.existsSync(`${box.home}/daemon.pid`), false);
  assert.equal(fs.existsSync(`${box.home}/super.sock`), false);
});

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
import { clusterInternalsProblems, assertClusterInternals } from '../../lib/master/process/cluster-internals/index.js';
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
  // net without the internal a fork-mode app's shared socket is built with, or the bind the agent routes.
  changed('net._createServerHandle', { net: { Server: net.Server, Socket: net.Socket } });
  changed('_listen2', { net: { Server: { prototype: { listen: net.Server.prototype.listen } }, Socket: net.Socket, _createServerHandle: () => null } });
  // A worker process, not the primary.
  changed('cluster is the primary', { cluster: Object.assign(Object.create(cluster), { isPrimary: false }) });
});

// The listen queries the seam answers in cluster's place (fork.js refusals, reuse-port.js):
// Node's own sources of the modules that build and read those messages, each doctored in turn.
test('a changed listen-query message or reusePort internal is named, with E_NODE_INTERNALS', () => {
  // @ts-expect-error process.binding is left out of Node's typings
  const natives = process.binding('natives');
  /** Node's sources with one replacement in module `id` (which must apply). */
  const doctored = (id, from, to) => {
    assert.ok(natives[id].includes(from), `${id} has ${from}`);
    return (m) => (m === id ? natives[m].replace(from, to) : natives[m]);
  };
  // Every reusePort check runs, even on a Node without it (its own checks aside).
  const changed = (what, node) => {
    const problems = clusterInternalsProblems({ reusePort: true, tcpConstants: { UV_TCP_REUSEPORT: 2 }, ...node });
    assert.deepEqual(problems.filter((p) => p.includes(what)).length, 1, `${what}: ${problems}`);
    assert.throws(() => assertClusterInternals({ reusePort: true, tcpConstants: { UV_TCP_REUSEPORT: 2 }, ...node }), (/** @type {any} */ err) => {
      assert.equal(err.code, 'E_NODE_INTERNALS');
      assert.match(err.message, new RegExp(`^Node ${process.version.replace(/\./g, '\\.')} changed what superd relies on in node:cluster: .*${what.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
      return true;
    });
  };
  assert.deepEqual(clusterInternalsProblems({ reusePort: true, tcpConstants: { UV_TCP_REUSEPORT: 2 } }), []);
  // cluster's messages with another cmd; answers matched by something else than ack.
  changed('cmd: \'NODE_CLUSTER\'', { builtin: doctored('internal/cluster/utils', "cmd: 'NODE_CLUSTER'", "cmd: 'NODE_CLUSTER2'") });
  changed('by ack alone', { builtin: doctored('internal/cluster/utils', 'callbacks.get(message.ack)', 'callbacks.get(message.reply)') });
  // A query that no longer carries flags (reuse-port.js keeps the app's, ipv6Only).
  changed('{address, port, addressType, fd, flags}', { builtin: doctored('net', '    flags,\n    backlog,', '    backlog,') });
  changed('{act: \'queryServer\', ...}', { builtin: doctored('internal/cluster/child', "act: 'queryServer'", "act: 'listenQuery'") });
  // The primary's answer without key (the fields superd's query-answer.js sends).
  changed('answers a listen query with {errno, key, ack, data}', { builtin: doctored('internal/cluster/primary', '      key,\n      ack: message.seq,', '      id: key,\n      ack: message.seq,') });
  // An unknown act no longer dropped (superd's renamed query would be answered twice).
  changed('no handler for', { builtin: doctored('internal/cluster/primary', 'const fn = methodMessageMapping[message.act];', 'const fn = methodMessageMapping[message.act] ?? unknownAct;') });
  changed('its errno failing the listen()', { builtin: doctored('internal/cluster/child', 'if (message.errno)\n    return cb(message.errno, null);', 'if (message.error)\n    return cb(message.error, null);') });
  // reusePort only: an answer with a handle, the worker's close, the handle's send, the bind's flags and their value.
  changed('as a shared handle', { builtin: doctored('internal/cluster/child', "send({ act: 'close', key });\n    handles.delete(key);\n    removeIndexesKey", "send({ act: 'closed', key });\n    handles.delete(key);\n    removeIndexesKey") });
  changed('ignores a worker\'s close', { builtin: doctored('internal/cluster/primary', 'if (handle && handle.remove(worker))', 'if (handle.remove(worker))') });
  changed('raw TCP handle', { builtin: doctored('internal/child_process', "message.type = 'net.Native';", "message.type = 'net.Handle';") });
  const createServerHandle = (address, port, addressType, fd) => /** @type {any} Node's internal */ (net)._createServerHandle(address, port, addressType, fd, 0);
  changed('binds with the flags it is given', { net: { ...net, _createServerHandle: createServerHandle } });
  changed('UV_TCP_REUSEPORT flag is 2', { tcpConstants: { UV_TCP_REUSEPORT: 4 } });
  // A listening handle's server no longer under owner_symbol (a lent socket's connections would have no server).
  changed('its server under owner_symbol', { builtin: doctored('net', 'const handle = this;\n  const self = handle[owner_symbol];', 'const handle = this;\n  const self = handle[kServer];') });
  // The round-robin handoff: a listener's onconnection, and the next handoff inside an answer
  // (sticky sessions and the daemon's overload refusals rely on both).
  changed('onconnection is distribute(err, handle)', { builtin: doctored('internal/cluster/round_robin_handle', 'this.handle.onconnection = (err, handle) => this.distribute(err, handle);', 'this.handle.onconnection = (err, handle) => this.enqueue(err, handle);') });
  changed('hands that worker its next connection at once', { builtin: doctored('internal/cluster/round_robin_handle', '\n    this.handoff(worker);\n  });', '\n    setImmediate(() => this.handoff(worker));\n  });') });
  // Sources out of reach (a Node without process.binding): those checks are the suite's, and
  // the daemon boots; the UV flag is still checked.
  assert.deepEqual(clusterInternalsProblems({ builtin: () => '' }), []);
  assert.deepEqual(clusterInternalsProblems({ builtin: () => '', reusePort: true, tcpConstants: { UV_TCP_REUSEPORT: 4 } }).map((p) => p.slice(0, 30)), ['libuv\'s UV_TCP_REUSEPORT flag ']);
  // Without reusePort in use (Node 20), its own internals are not asked for.
  assert.deepEqual(clusterInternalsProblems({ reusePort: false, tcpConstants: {} }), []);
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

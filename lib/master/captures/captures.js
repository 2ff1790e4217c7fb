// The daemon's side of `super profile`, `super heap` and profile_on_stall. It checks a
// request, names the file, asks each worker's agent (ask-agent.js) and relays the outcome;
// the agent writes the file itself, so no profile or snapshot byte passes through the
// daemon's event loop (the one exception: diagnostic-file, which sends a finished file to
// a remote client that cannot read this host's disk, send-file.js).
//
//   super profile api --> profile {app, slot?, duration, out?} --> Captures.profile
//     --> per worker: TO_AGENT.PROFILE {id, duration, path} --> agent writes path
//     <-- FROM_AGENT.DIAGNOSTIC_DONE {id, ok, bytes}  (or the worker's exit: E_WORKER_EXITED)
//   agent METRICS {loop.p99} --> stall-rule.js --> the same, into stall-<app>-<slot>-<time>
//
// One diagnostic per worker at a time (E_BUSY), whoever asks: a user, monit or a stall. A
// request for several workers (`super profile api`) skips the busy ones and says which.
import fs from 'node:fs/promises';
import path from 'node:path';
import { SuperError } from '../../errors.js';
import { workerProcesses } from '../process/index.js';
import { WORKER_STATES as S } from '../states.js';
import { askAgent } from './ask-agent.js';
import { profilesDir, diagnosticName, pruneStallCaptures } from './profile-files.js';
import { outPath, checkOutDir, htmlPathOf, firstExisting } from '../../profiles/out-path.js';
import { existsError } from '../../profiles/new-file.js';
import { unreplaceableKind, notReplaceableReason } from '../../replaceable.js';
import { shouldCapture } from './stall-rule.js';
import { recordStallCapture } from './stall-captures.js';
import { sendFile } from './send-file.js';

const WRITE_MARGIN_MS = 60_000; // to stop the profiler and write the file, after the duration
const HEAP_TIMEOUT_MS = 15 * 60_000; // a snapshot of a heap of gigabytes takes minutes
const WHAT = { profile: 'CPU profile', heap: 'heap snapshot', stall: 'stall capture' };

/**
 * @typedef {{app: string, slot: number, state: string, proc: object|null}} WorkerTarget
 *   one worker a request names (lib/master/control/capture-targets.js)
 */

export class Captures {
  #busy = new Map(); // WorkerProcess -> what runs on it (a WHAT key)
  #lastStall = new WeakMap(); // WorkerProcess -> when its last stall capture started (ms)

  /**
   * @param {object} o
   * @param {string} o.home  SUPER_HOME
   * @param {import('../apps/registry-reader.js').RegistryReader} o.reader
   * @param {import('../../logs/json-logger.js').JsonLogger} o.log
   */
  constructor({ home, reader, log }) {
    this.home = home;
    this.reader = reader;
    this.log = log;
    this.onNew = (proc) => proc.on('metrics', (report) => this.#onReport(proc, report));
    workerProcesses.on('new', this.onNew);
  }

  /**
   * CPU profiles of `workers` for `duration` ms, one file each, in parallel.
   * @param {WorkerTarget[]} workers
   * @param {{duration: number, out?: string, force?: boolean, remote: boolean}} o  out: an absolute
   *   path on this host; force: replace what exists there
   * @returns {Promise<{files: object[], failed: object[], skipped: object[]}>}  a single worker's
   *   failure is thrown; skipped: workers busy with another diagnostic (a stall capture), when others are not
   */
  profile(workers, { duration, out, force, remote }) {
    return this.#take('profile', workers, { out, force, remote, duration, timeout: duration + WRITE_MARGIN_MS });
  }

  /** A heap snapshot of one worker (`workers` holds one). */
  heap(workers, { out, force, remote }) {
    return this.#take('heap', workers, { out, force, remote, timeout: HEAP_TIMEOUT_MS });
  }

  /** Sends the finished file `name` of $SUPER_HOME/profiles to the client (diagnostic-file). */
  async file(name, conn, progress) {
    return sendFile(await profilesDir(this.home), name, conn, progress);
  }

  close() {
    workerProcesses.off('new', this.onNew);
  }

  /**
   * @param {string} kind  @param {object[]} workers
   * @param {{out?: string, force?: boolean, remote: boolean, duration?: number, timeout: number}} o
   */
  async #take(kind, workers, { out, force = false, remote, duration, timeout }) {
    // Everything is checked before any worker is asked: a refused request touches none.
    if (out && remote) throw new SuperError('E_LOCAL_ONLY', '--out names a file on the daemon\'s host, refused over the TCP control listener; without --out the file is sent back to you');
    const all = workers;
    const skipped = [];
    workers = all.filter((w) => {
      try {
        this.#checkWorker(w);
        return true;
      } catch (err) {
        if (err.code !== 'E_BUSY' || all.length === 1) throw err;
        skipped.push({ app: w.app, slot: w.slot, ...wire(err) });
        return false;
      }
    });
    if (workers.length === 0) throw new SuperError('E_BUSY', `every worker named is busy with another diagnostic (${skipped.map((w) => `${w.app}#${w.slot}`).join(', ')}); wait for it to finish`);
    const procs = workers.map((w) => w.proc);
    for (const p of procs) this.#busy.set(p, kind);
    try {
      const dir = out ? await checkOutDir(out) : await profilesDir(this.home);
      const at = Date.now();
      const fileOf = (w) => (out ? outPath(out, w.slot, all.length) : path.join(dir, diagnosticName({ kind, app: w.app, slot: w.slot, at })));
      if (out) {
        const files = workers.map(fileOf);
        const paths = kind === 'profile' ? [...files, ...files.map(htmlPathOf)] : files;
        const taken = force ? null : await firstExisting(paths);
        if (taken) throw existsError(taken);
        // --force replaces a regular file only (never /dev/null, a directory or a link).
        for (const f of force ? paths : []) {
          const what = unreplaceableKind(await fs.lstat(f).catch(() => null));
          if (what) throw new SuperError('E_USAGE', notReplaceableReason(f, what));
        }
      }
      const settled = await Promise.allSettled(workers.map((w) => this.#ask(w, { kind, file: fileOf(w), replace: force, duration, timeout })));
      if (workers.length === 1 && settled[0].status === 'rejected') throw settled[0].reason;
      return {
        files: settled.filter((s) => s.status === 'fulfilled').map((s) => s.value),
        failed: settled.flatMap((s, i) => (s.status === 'rejected' ? [{ app: workers[i].app, slot: workers[i].slot, ...wire(s.reason) }] : [])),
        skipped,
      };
    } finally {
      for (const p of procs) this.#busy.delete(p);
    }
  }

  #checkWorker({ app, slot, state, proc }) {
    const who = `${app}#${slot}`;
    if (!proc || state === S.STOPPING) throw new SuperError('E_USAGE', `${who} has no running worker (it is ${state}); \`super ls\` shows which run`);
    if (!proc.hasAgent) {
      throw new SuperError('E_NO_AGENT', `${who} runs without the superd agent (interpreter: none, or another interpreter than node), so it cannot be profiled: only a Node worker can take a CPU profile or a heap snapshot of itself`);
    }
    const busy = this.#busy.get(proc);
    if (busy) throw new SuperError('E_BUSY', `${who}: a ${WHAT[busy]} of this worker is being taken; wait for it to finish`);
  }

  async #ask({ app, slot, proc }, { kind, file, replace, duration, timeout }) {
    const r = await askAgent(proc, { kind, file, replace, duration, timeout, who: `${app}#${slot}` });
    return { app, slot, pid: proc.pid, path: file, bytes: r.bytes, heap_used: r.heapUsed ?? undefined };
  }

  // profile_on_stall: each agent report may start a capture (stall-rule.js decides).
  #onReport(proc, report) {
    const settings = this.reader.config(proc.appName)?.profile_on_stall;
    if (!settings) return;
    const now = Date.now();
    const p99 = report.loop?.p99;
    if (!shouldCapture({ p99, settings, lastAt: this.#lastStall.get(proc), busy: this.#busy.has(proc), now })) return;
    const worker = this.reader.worker(proc.appName, proc.slotIndex);
    if (!worker || worker.proc !== proc || worker.state !== S.ONLINE) return;
    this.#lastStall.set(proc, now);
    this.#busy.set(proc, 'stall');
    this.#capture(proc, settings, p99, now)
      .catch((err) => this.log.warn({ app: proc.appName, slot: proc.slotIndex, err: err.message, code: err.code }, `${proc.appName}#${proc.slotIndex} stall capture failed: ${err.message}`))
      .finally(() => this.#busy.delete(proc));
  }

  async #capture(proc, settings, p99, at) {
    const { appName: app, slotIndex: slot } = proc;
    const who = `${app}#${slot}`;
    const dir = await profilesDir(this.home);
    const file = path.join(dir, diagnosticName({ kind: 'profile', app, slot, at, stall: true }));
    const fields = { app, slot, pid: proc.pid, loop_p99_ms: p99, file };
    this.log.warn(fields, `${who} event-loop delay p99 ${p99} ms is over profile_on_stall.loop_delay ${settings.loop_delay} ms: recording a ${settings.duration} ms CPU profile (stall capture ${path.basename(file)})`);
    await askAgent(proc, { kind: 'profile', file, duration: settings.duration, timeout: settings.duration + WRITE_MARGIN_MS, who });
    // Pruned before it is announced: whoever reads the capture from `ls` or an event finds
    // at most `keep` files, never the moment between the write and the prune.
    const removed = await pruneStallCaptures(dir, app, settings.keep);
    if (removed.length) this.log.info({ app, removed }, `${app}: removed ${removed.length} stall capture(s) beyond profile_on_stall.keep ${settings.keep}`);
    recordStallCapture(proc, { file, at, loop_p99_ms: p99 });
    this.log.info(fields, `${who} stall capture written: ${file}`);
  }
}

const wire = (err) => (err instanceof SuperError ? { code: err.code, message: err.message } : { code: 'E_DIAGNOSTICS', message: err.message });

// One diagnostic asked of one worker's agent, and its answer: the agent's DIAGNOSTIC_DONE
// with the request's id, the worker's exit, or a deadline, whichever comes first.
import { TO_AGENT } from '../../ipc/agent-protocol.js';
import { SuperError } from '../../errors.js';
import { describeExit } from '../process/index.js';
import { removePartial } from './profile-files.js';

const WHAT = { profile: 'CPU profile', heap: 'heap snapshot' };
let nextId = 1;

/**
 * @param {import('../process/worker-process.js').WorkerProcess} proc
 * @param {object} o
 * @param {'profile'|'heap'} o.kind
 * @param {string} o.file  where the agent writes it (absolute)
 * @param {boolean} [o.replace]  whether a file at `file` may be replaced (--force)
 * @param {number} [o.duration]  ms (profile)
 * @param {number} o.timeout  ms
 * @param {string} o.who  `app#slot`, for messages
 * @returns {Promise<{bytes: number|null, heapUsed: number|null}>}
 */
export function askAgent(proc, { kind, file, replace = false, duration, timeout, who }) {
  return new Promise((resolve, reject) => {
    const id = nextId++;
    let timer = null;
    const finish = (err, value) => {
      clearTimeout(timer);
      proc.off('diagnostic', onAnswer);
      proc.off('exit', onExit);
      if (!err) return resolve(value);
      // A worker that died or failed mid-way leaves no half-written file.
      removePartial(file).finally(() => reject(err));
      return undefined;
    };
    const onAnswer = (m) => {
      if (m.id !== id) return;
      if (m.ok) finish(null, { bytes: m.bytes, heapUsed: m.heapUsed });
      else finish(new SuperError(m.error.code, `${who}: ${m.error.message}`));
    };
    const onExit = (exit) => finish(new SuperError('E_WORKER_EXITED', `${who} ${describeExit(exit)} before its ${WHAT[kind]} was written; no file was left`));
    proc.on('diagnostic', onAnswer);
    proc.once('exit', onExit);
    timer = setTimeout(() => finish(new SuperError('E_TIMEOUT', `${who} did not finish its ${WHAT[kind]} within ${Math.round(timeout / 1000)} s (its event loop may be blocked: \`super ls\` shows its loop delay); no file was left`)), timeout);
    try {
      proc.askAgent(kind === 'heap' ? TO_AGENT.HEAP : TO_AGENT.PROFILE, { id, path: file, replace, ...(kind === 'profile' && { duration }) });
    } catch {
      finish(new SuperError('E_WORKER_EXITED', `${who} is exiting (its channel is closed); no ${WHAT[kind]} was taken`));
    }
  });
}

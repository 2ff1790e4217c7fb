// super pid [targets...] [--json]: the pids of the running workers of apps (every app
// without a target; app#slot for one worker), one per line, as `pm2 pid`, for scripts:
// `kill -USR2 $(super pid api)`. Unlike PM2, a stopped worker has no line (PM2 prints 0 for
// it, and `kill 0` signals the caller's whole process group), and a target that names no
// app is E_APP_NOT_FOUND, not an empty answer.
import { request } from '../session.js';
import { workerTargets } from '../worker-target.js';

export default async function pid(targets, opts = {}) {
  const data = await request('pid', workerTargets(targets.length ? targets : ['all']));
  if (opts.json) process.stdout.write(`${JSON.stringify(data)}\n`);
  else if (data.workers.length) process.stdout.write(`${data.workers.map((w) => w.pid).join('\n')}\n`);
}

// super profile <app>[#slot] [--duration 10s] [--out FILE [--force]] [--json]: a CPU profile of each
// worker of the app (or of one), taken by the worker's agent; then, here, a flame graph
// beside each .cpuprofile (<name>.html) and the top functions by self time.
import { connectDaemon } from '../session.js';
import { workerTarget } from '../worker-target.js';
import { printError } from '../coded-error.js';
import { checkOut, localFiles } from '../capture-output.js';
import { profileDuration, DEFAULT_PROFILE_MS } from '../../config/profile-limits.js';
import { reportProfile } from '../../profiles/profile-report.js';
import { formatTopSelfTime } from '../../profiles/profile-summary.js';
import { SuperError, EXIT } from '../../errors.js';
import { formatBytes } from '../format.js';

const ANSWER_MARGIN_MS = 90_000; // the worker stops the profiler and writes the file

export default async function profile(target, opts = {}) {
  const w = workerTarget(target);
  const duration = opts.duration === undefined ? DEFAULT_PROFILE_MS : profileDuration(opts.duration);
  const force = Boolean(opts.force);
  const out = await checkOut(opts.out);
  const remote = Boolean(process.env.SUPER_HOST);
  const client = await connectDaemon();
  try {
    if (process.stderr.isTTY && !opts.json) process.stderr.write(`profiling ${target} for ${duration / 1000} s...\n`);
    // Over --host, --out is where the copy goes here: the daemon writes only to its own profiles/.
    const data = await client.request('profile', { app: w.target, slot: w.slot, duration, out: remote ? undefined : out, force }, { timeout: duration + ANSWER_MARGIN_MS });
    const files = await localFiles(client, data.files, { remote, out, force });
    const reports = [];
    for (const f of files) reports.push({ ...f, ...(await reportProfile(f.path, { title: `${f.app}#${f.slot} (pid ${f.pid})`, force })) });
    const skipped = data.skipped ?? [];
    if (opts.json) process.stdout.write(`${JSON.stringify({ files: reports, failed: data.failed, skipped })}\n`);
    else for (const r of reports) process.stdout.write(render(r));
    // The others were profiled: a worker busy with a stall capture is said, not a failure.
    if (!opts.json) for (const w of skipped) process.stderr.write(`skipped ${w.app}#${w.slot}: ${w.message.replace(/^[^:]*: /, '')}\n`);
    for (const f of data.failed) printError(new SuperError(f.code, f.message));
    return data.failed.length ? EXIT.FAILED : EXIT.OK;
  } finally {
    client.close();
  }
}

function render(r) {
  return [
    `${r.app}#${r.slot} (pid ${r.pid}): ${r.path} (${formatBytes(r.bytes)})`,
    `  flame graph: ${r.html}`,
    formatTopSelfTime(r.top).replace(/^/gm, '  '),
    '',
  ].join('\n');
}

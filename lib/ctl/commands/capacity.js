// super capacity <app> --slo p99=20ms [--path /x] [--max-instances N] [--step-duration 10s]
//   [--connections C] [--target 25/s] [--max-rate N] [--start-rate N] [--probes N]
//   [--max-time 10m] [--warmup 2s] [--port N] [--svg FILE] [--json]
// Measures a copy of the app (`<app>~capacity`, made by the daemon on a free loopback
// port), never the app itself; the load generator runs in this process. The copy is
// deleted at the end and on Ctrl-C / SIGTERM; if this process dies, the daemon deletes it
// when this connection closes. Progress goes to stderr, the report to stdout.
import fs from 'node:fs';
import path from 'node:path';
import { SuperError, fileErrorCode } from '../../errors.js';
import { superHome } from '../../home.js';
import { connectDaemon } from '../session.js';
import { parseOptions } from '../../capacity/options.js';

const SIGNAL_EXIT = { SIGINT: 130, SIGTERM: 143 };

export default async function capacity(app, opts) {
  const plan = parseOptions(opts); // bad input is refused before anything starts
  if (plan.svg) checkWritable(path.dirname(path.resolve(plan.svg)), '--svg');
  const { measureCapacity } = await import('../../capacity/run.js');
  const client = await connectDaemon();
  const progress = (line) => process.stderr.write(`super capacity: ${line}\n`);
  // exiting: the signal handler's removal of the copy, which ends in process.exit
  /** @type {{stopped: boolean, current: {stop: () => void}|null, exiting: Promise<void>|null}} */
  const abort = { stopped: false, current: null, exiting: null };
  let copy = null;
  const removeCopy = () => (copy ? client.request('delete', { target: copy }, { timeout: 0 }).catch(() => {}) : Promise.resolve());
  const onSignal = (signal) => {
    if (abort.stopped) return;
    abort.stopped = true;
    abort.current?.stop();
    progress(`${signal}: removing ${copy ?? 'the copy'}`);
    // A copy still being started or scaled is removed by the daemon when the connection closes.
    abort.exiting = removeCopy().then(() => {
      client.close();
      process.exit(SIGNAL_EXIT[signal]);
    });
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  let result;
  try {
    result = await measureCapacity({ client, app, plan, progress, abort, onCopy: (name) => (copy = name) });
  } catch (err) {
    if (!abort.stopped) throw err;
  } finally {
    if (!abort.stopped) {
      await removeCopy();
      client.close();
    }
  }
  // Interrupted: the measurement is dropped; the handler exits once the copy is removed.
  if (abort.stopped || result === undefined) return abort.exiting; // no result: stopped
  const { recommend, renderReport } = await import('../../capacity/render.js');
  const { svgChart } = await import('../../capacity/svg.js');
  const name = result.copy.app;
  const report = { app: name, copy: result.copy.copy, plan, rows: result.rows, stopped: result.stopped, recommendation: recommend(result.rows, plan.target), svg: /** @type {string|null} */ (null) };
  report.svg = writeSvg(plan.svg ?? path.join(superHome(), `capacity-${name.replaceAll('/', '-')}.svg`), svgChart(report));
  if (plan.json) {
    const { plan: p, ...rest } = report;
    process.stdout.write(`${JSON.stringify({ ...rest, slo_ms: p.slo, path: p.path, step_ms: p.stepMs, connections: p.connections, cpus: p.cpus, target_rps: p.target })}\n`);
  } else {
    process.stdout.write(renderReport(report));
  }
}

/** Refuses a chart file that could not be written before minutes of measurement, not after. */
function checkWritable(dir, flag) {
  try {
    fs.accessSync(dir, fs.constants.W_OK);
  } catch (err) {
    throw new SuperError('E_USAGE', `${flag}: cannot write into ${dir} (${err.code}); give a file in a writable directory`);
  }
}

function writeSvg(file, text) {
  const abs = path.resolve(file);
  try {
    fs.writeFileSync(abs, text);
  } catch (err) {
    throw new SuperError(fileErrorCode(err, 'E_USAGE'), `cannot write the chart to ${abs} (${err.code ?? err.message}); give a writable file with --svg`);
  }
  return abs;
}

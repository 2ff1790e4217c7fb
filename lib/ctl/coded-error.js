// The one renderer of coded errors in the CLI. An error is built where it happens (the
// daemon's reply, a worker that failed to start, a replacement that failed a reload) as a
// SuperError; every command prints it here, the same way:
//   super: E_CODE: one-line message
//     a config problem, or a note (one per line)
//     app#slot | a line of the worker's stderr tail
import { SuperError, EXIT } from '../errors.js';

/** The text of one error; `prog` names who speaks (`super`, `super run`). */
export function renderError(err, prog = 'super') {
  if (!(err instanceof SuperError)) return `${prog}: E_INTERNAL: ${err?.stack ?? err}\n`;
  const d = err.details ?? {};
  const lines = [`${prog}: ${err.code}: ${err.message}`];
  for (const p of [...(d.problems ?? []), ...(d.notes ?? [])]) lines.push(`  ${p}`);
  if (d.stderr) lines.push(...d.stderr.split('\n').map((l) => `  ${d.stderr_label} | ${l}`));
  return `${lines.join('\n')}\n`;
}

/** Prints `err` on stderr; returns the exit status it stands for. */
export function printError(err, prog) {
  process.stderr.write(renderError(err, prog));
  return err instanceof SuperError ? err.exitStatus : EXIT.FAILED;
}

/** The tail of a failed worker's stderr, as the daemon reported it (tail-file.js). */
const tailOf = (f, label) => (f.stderr ? { stderr: f.stderr, stderr_label: f.stderr_label ?? label } : {});

/** A worker of a start, restart or scale that failed before it became ready. */
export function startFailure(f, suffix = '') {
  return new SuperError('E_START_FAILED', `${f.app}#${f.slot} ${f.reason} before it became ready${suffix}`, tailOf(f, `${f.app}#${f.slot}`));
}

/** A reload that stopped at a failed replacement (r: the app's reload outcome). */
export function reloadFailure(r) {
  const f = r.failed;
  const list = (a) => a.join(', ');
  const s = (n) => (n === 1 ? '' : 's');
  const kept = r.kept.length ? `slot${s(r.kept.length)} ${list(r.kept)} still run${r.kept.length === 1 ? 's' : ''} the old version` : 'no slot kept the old version';
  const replaced = r.replaced.length ? `; slot${s(r.replaced.length)} ${list(r.replaced)} already run${r.replaced.length === 1 ? 's' : ''} the new one` : '';
  return new SuperError('E_RELOAD_FAILED', `${r.app}#${f.slot} ${f.reason}; the reload stopped and the new worker was killed`,
    { notes: [`${r.app}: ${kept}${replaced}`], ...tailOf(f, `${r.app}#${f.slot}`) });
}

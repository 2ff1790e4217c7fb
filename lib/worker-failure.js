// The coded errors of workers that failed: a start, restart or scale whose worker failed
// before it became ready, and a reload that stopped at a failed replacement. Built from
// the daemon's reply by every command that reports one (lib/ctl, lib/capacity) and
// printed by lib/ctl/coded-error.js. A leaf: it needs only the error registry.
import { SuperError } from './errors.js';

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

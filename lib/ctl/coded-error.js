// The one renderer of coded errors in the CLI. An error is built where it happens (the
// daemon's reply, a worker that failed to start (lib/worker-failure.js), a replacement that
// failed a reload) as a SuperError; every command prints it here, the same way:
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

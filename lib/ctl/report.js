// Prints what a lifecycle op reported: warnings and failures (with the stderr tail).
import { EXIT } from '../errors.js';
import { printError } from './coded-error.js';
import { startFailure } from '../worker-failure.js';

export function printOutcome(data) {
  for (const w of data.warnings ?? []) process.stderr.write(`super: warning: ${w}\n`);
  for (const f of data.failed ?? []) printError(startFailure(f));
  return data.failed?.length ? EXIT.FAILED : EXIT.OK;
}

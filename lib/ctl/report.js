// Prints what a lifecycle op reported: warnings and failures (with the stderr tail).
import { EXIT } from '../errors.js';

export function printOutcome(data) {
  for (const w of data.warnings ?? []) process.stderr.write(`super: warning: ${w}\n`);
  for (const f of data.failed ?? []) {
    process.stderr.write(`super: E_START_FAILED: ${f.app}#${f.slot} ${f.reason} before it became ready\n`);
    if (f.stderr) process.stderr.write(`${f.stderr.split('\n').map((l) => `  ${f.stderr_label ?? `${f.app}#${f.slot}`} | ${l}`).join('\n')}\n`);
  }
  return data.failed?.length ? EXIT.FAILED : EXIT.OK;
}

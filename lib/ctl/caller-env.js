// This shell's environment as the daemon takes it: the base of the apps a `start` adds,
// and what `reload` / `restart --update-env` give the workers.
import { SuperError } from '../errors.js';

export const callerEnv = () => Object.fromEntries(Object.entries(process.env).filter(([, v]) => typeof v === 'string'));

/**
 * --update-env's environment, or undefined without it; E_USAGE with --host (it would be
 * this machine's environment, given to another's apps).
 * @param {{updateEnv?: boolean}} opts
 */
export function updatedEnv(opts) {
  if (!opts.updateEnv) return undefined;
  if (process.env.SUPER_HOST) throw new SuperError('E_USAGE', '--update-env carries this shell\'s environment into the apps; run it on the daemon\'s host, not with --host');
  return callerEnv();
}

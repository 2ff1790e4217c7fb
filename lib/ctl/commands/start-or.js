// PM2's deploy-script commands: `super startOrReload <file>` (also `startOrGracefulReload`),
// `super startOrRestart <file>`, and `super reload|restart <file>` as PM2 runs them. The
// file's apps that are not running are started; those running are reloaded (rolling) or
// restarted, every one, with the file's config and its --env block, as
// `pm2 startOrReload ecosystem.config.js --env production` does on each deploy.
import { SuperError } from '../../errors.js';
import { isEcosystemFile } from '../ecosystem-name.js';
import start from './start.js';

/** @param {string} file  @param {{then: 'reload'|'restart', env?: string, only?: string, json?: boolean}} opts */
export default async function startOr(file, opts) {
  if (process.env.SUPER_HOST) throw new SuperError('E_USAGE', `super ${opts.then === 'reload' ? 'startOrReload' : 'startOrRestart'} starts apps from a file of this machine; run it on the daemon's host, not with --host`);
  if (!isEcosystemFile(file)) {
    throw new SuperError('E_USAGE', `"${file}" is not an ecosystem file (ecosystem*.js, *.config.js, .json, .yml, .yaml, .ts); super ${opts.then} <app> acts on running apps`);
  }
  return start(file, [], opts);
}

// `super reload <file>` and `super restart <file>`, one ecosystem file as the only target,
// run as PM2 runs them (PM2's API reload/restart of a config file, _startJson): the file's
// apps not running are started, the others reloaded or restarted with the file's config
// and --env block. --keep-config and --update-env keep superd's reading (the apps the
// file started), and so does --host (the daemon there starts nothing from a file of this
// machine). --env and --only choose in a file, so they need one.
import fs from 'node:fs';
import { SuperError } from '../errors.js';
import { isEcosystemFile } from './ecosystem-name.js';

/**
 * Whether `targets` is one ecosystem file to run as PM2 does; E_USAGE for --env or --only
 * without one.
 * @param {string[]} targets  @param {{env?: string, only?: string, keepConfig?: boolean, updateEnv?: boolean}} opts
 */
export function fileAsPm2Does(targets, opts) {
  const file = targets.length === 1 && isEcosystemFile(targets[0]) && fs.existsSync(targets[0]);
  const choose = opts.env !== undefined || opts.only !== undefined;
  if (choose && !file) {
    throw new SuperError('E_USAGE', '--env and --only choose in an ecosystem file: give one file as the target (super reload ecosystem.config.js --env production)');
  }
  if (choose && process.env.SUPER_HOST) throw new SuperError('E_USAGE', '--env and --only start from a file of this machine; run them on the daemon\'s host, not with --host');
  if (choose && (opts.keepConfig || opts.updateEnv)) {
    throw new SuperError('E_USAGE', '--keep-config and --update-env act on the running apps; --env and --only start from the file: give one or the other');
  }
  return Boolean(file) && !opts.keepConfig && !opts.updateEnv && !process.env.SUPER_HOST;
}

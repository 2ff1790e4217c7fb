// What a reload re-reads first: each app's ecosystem file (the file is the source of
// truth), and each file's daemon-wide settings, checked before any is applied.
import { checkSettings, applySettings } from '../settings/index.js';
import { shellQuote } from '../../config/shell-split.js';
import { SuperError } from '../../errors.js';

/**
 * app -> its config as its file says now (apps not started from a file are left out: they
 * reload with their running config). Throws E_CONFIG, E_LOG_PATH or E_SCHEDULING_FIXED
 * before anything changes.
 * @param {import('./app.js').App[]} apps
 * @param {import('../settings/daemon-settings.js').DaemonSettings} settings
 * @returns {Promise<Map<import('./app.js').App, object>>}
 */
export async function rereadConfigs(apps, settings) {
  const { loadEcosystemOffThread } = await import('../../config/load-off-thread.js');
  const files = new Map();
  const configs = new Map();
  for (const app of apps) {
    if (!app.source?.file) continue;
    const key = `${app.source.file}\0${app.source.env ?? ''}\0${app.source.cwd ?? ''}`;
    if (!files.has(key)) files.set(key, await loadEcosystemOffThread(app.source.file, settings.loadOptions({ env: app.source.env, startDir: app.source.cwd, callerEnv: app.clientEnv })));
    const config = files.get(key).apps.find((c) => c.name === app.name);
    if (!config) {
      throw new SuperError('E_CONFIG', `${app.name} is no longer in ${app.source.file}; nothing was reloaded. Remove it with \`super delete ${shellQuote(app.name)}\`, or reload the running config with --keep-config`);
    }
    configs.set(app, config);
  }
  // Each file's log files and daemon-wide settings, as `start` checks them
  // (lib/master/settings/start-settings.js): every file is checked before any is applied.
  const owners = { policy: settings.policy, log: settings.log };
  const plans = [];
  for (const eco of files.values()) plans.push(await checkSettings(eco.daemon, eco.apps, owners, { source: eco.file, withControl: false }));
  for (const plan of plans) await applySettings(plan, owners);
  return configs;
}

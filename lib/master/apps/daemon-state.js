// The registry's apps in the dump's shape (`super save`, and the state `super upgrade` hands
// to the successor daemon): each app's resolved config (instances as scaled now), the
// environment it was started with, its source and id, and whether it is stopped.
import { WORKER_STATES as S } from '../states.js';
import { appIds } from './app-ids.js';

/** @param {Map<string, import('./app.js').App>} apps  the registry's apps */
export function appsState(apps) {
  const ids = appIds(apps);
  // "~" names are superd's own temporary copies (`super capacity`): never saved nor handed over
  return [...apps.values()].filter((app) => !app.name.includes('~')).map((app) => ({
    id: ids.get(app.name),
    config: app.effectiveConfig(),
    clientEnv: app.clientEnv,
    source: app.source ?? undefined,
    scaled_from: app.scaledFrom, // the file's instances when a command scaled it (autoscale.js keptCount); null: not scaled
    stopped: app.status === S.STOPPED,
  }));
}

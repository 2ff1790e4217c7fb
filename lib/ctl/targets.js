// The targets of a command as the daemon reads them (lib/master/apps/targets.js): names,
// ids, namespaces and `all` as typed; an ecosystem file (`super reload ecosystem.yml`) as
// its absolute path, which names the apps started from it.
import fs from 'node:fs';
import path from 'node:path';
import { isEcosystemFile } from './ecosystem-name.js';

export const toTargets = (list) => list.map((t) => (isEcosystemFile(t) && fs.existsSync(t) ? path.resolve(t) : t));

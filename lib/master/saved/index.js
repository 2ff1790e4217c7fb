// What the daemon keeps on disk: SUPER_HOME (prepared by lib/home.js, which the CLI's
// `super token` shares), the pid file, the saved process list.
export { prepareHome } from '../../home.js';
export { acquirePidFile, releasePidFile, replacePidFile } from './pid-file.js';
export { saveApps, resurrectApps } from './saved-state.js';

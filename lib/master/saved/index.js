// What the daemon keeps on disk: the home directory, the pid file, the saved process list.
export { prepareHome } from './home-dir.js';
export { acquirePidFile, releasePidFile } from './pid-file.js';

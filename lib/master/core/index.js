// The composition root's face: the daemon that lib/master/index.js hands to the CLI. No
// other sub-system imports core/: it builds them all (daemon.js) and nothing builds it.
export { startDaemon } from './daemon.js';

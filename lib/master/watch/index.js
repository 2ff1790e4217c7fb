// Watch-and-reload: a file watcher per app in a worker thread, reloads on change.
export { WatchManager } from './watcher.js';

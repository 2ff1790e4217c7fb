// Preloaded (--import) into the daemon that `super start <file>` launches (lib/ctl/launch-daemon.js):
// starts the thread that reads ecosystem files (load-off-thread.js) before the daemon loads
// its own modules, so that both boot side by side and the file the CLI sends next is read
// by a thread that is already up.
import { isMainThread } from 'node:worker_threads';
import { warmReader } from './load-off-thread.js';

// A worker thread inherits the daemon's --import: only the daemon's main thread starts one.
if (isMainThread) warmReader();

// One daemon per SUPER_HOME: the pid file is created exclusively (O_EXCL), so of two
// daemons booting at once exactly one wins. A pid file left by a killed daemon (its pid
// dead, or reused by a process that is not a superd daemon) is removed and retried.
import fs from 'node:fs';
import { SuperError } from '../errors.js';
import { processAlive } from '../process-alive.js';

// A superd daemon's command line: `node .../lib/master/daemon.js`, `super daemon` or `super run`.
const DAEMON_CMDLINE = /lib\/master\/daemon\.js|super(\.js)?\0(daemon|run)\0/;

function isDaemon(pid) {
  if (!processAlive(pid)) return false;
  try {
    return DAEMON_CMDLINE.test(fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8'));
  } catch {
    return process.platform !== 'linux'; // cannot tell: assume alive
  }
}

export function acquirePidFile(file) {
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const fd = fs.openSync(file, 'wx', 0o600);
      fs.writeSync(fd, `${process.pid}\n`);
      fs.closeSync(fd);
      return;
    } catch (err) {
      if (err.code !== 'EEXIST') throw new SuperError('E_HOME', `cannot write ${file}: ${err.code}`);
    }
    const pid = Number(fs.readFileSync(file, 'utf8').trim());
    if (pid > 0 && pid !== process.pid && isDaemon(pid)) {
      throw new SuperError('E_DAEMON_RUNNING', `a daemon (pid ${pid}) already runs for this SUPER_HOME`);
    }
    fs.rmSync(file, { force: true });
  }
  throw new SuperError('E_DAEMON_RUNNING', `could not take ${file}; another daemon is starting`);
}

export function releasePidFile(file) {
  try {
    if (Number(fs.readFileSync(file, 'utf8').trim()) === process.pid) fs.rmSync(file, { force: true });
  } catch {}
}

// Small util-linux programs that a worker is exec'd through, found once at boot.
//  - setsid: each worker leads its own process group, so stopping it reaches every
//    process it started (no orphans), with one kill(-pgid).
//  - setpriv --pdeathsig KILL (fork mode only): a non-Node child has no IPC channel to
//    notice the daemon dying; the kernel kills it when the daemon does. Cluster workers
//    exit by themselves when the primary's IPC channel closes (node's child.js).
// Both exec in place (same pid). Where they are missing (not Linux) workers still run,
// only without these guarantees.
import fs from 'node:fs';
import path from 'node:path';

function which(name) {
  for (const dir of (process.env.PATH || '/usr/bin:/bin').split(path.delimiter)) {
    const p = path.join(dir, name);
    try {
      fs.accessSync(p, fs.constants.X_OK);
      return p;
    } catch {}
  }
  return null;
}

let found;
/** @returns {{setsid: string|null, setpriv: string|null}} */
export function execTools() {
  found ??= process.platform === 'linux' ? { setsid: which('setsid'), setpriv: which('setpriv') } : { setsid: null, setpriv: null };
  return found;
}

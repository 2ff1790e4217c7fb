// A live process's descriptors as /proc shows them: what each one is open on (a file's
// path, `socket:[inode]`, `anon_inode:inotify`, ...).
import fs from 'node:fs';

/**
 * Every descriptor of `pid` with its target; one closed while they are read is left out.
 * @param {number|string} pid
 * @returns {{fd: number, target: string}[]}
 */
export function fdTargets(pid) {
  const out = [];
  for (const fd of fs.readdirSync(`/proc/${pid}/fd`)) {
    try {
      out.push({ fd: Number(fd), target: fs.readlinkSync(`/proc/${pid}/fd/${fd}`) });
    } catch {
      // closed meanwhile
    }
  }
  return out;
}

// A real cgroup v1 memory group for a test: `super ...` commands run inside it (so a daemon
// they start lives there), with a memory limit. A test whose failure would be a runaway
// allocation (a daemon reading /dev/zero, forking without bound) runs its daemon in one, so
// that failure is the group's OOM kill, never the machine's. Needs root and cgroup v1's
// memory hierarchy: `memoryCgroupSkip` says why not, for `test(..., { skip })`.
import fs from 'node:fs';
import path from 'node:path';
import { superInCgroup } from './cgroup.js';

const V1 = '/sys/fs/cgroup/memory';

export const memoryCgroupSkip = (process.getuid?.() !== 0 && 'writing a cgroup needs root')
  || (!fs.existsSync(path.join(V1, 'cgroup.procs')) && `no cgroup v1 memory hierarchy at ${V1}`);

/**
 * A new group with `limit` bytes, removed after the test (once the sandbox's processes are
 * gone: call it after sandbox()).
 * @param {import('node:test').TestContext} t
 * @param {number} limit
 */
export function memoryCgroup(t, limit) {
  const dir = path.join(V1, `superd-test-${process.pid}-${Date.now()}`);
  fs.mkdirSync(dir);
  t.after(() => removeCgroup(dir));
  fs.writeFileSync(path.join(dir, 'memory.limit_in_bytes'), String(limit));
  try {
    fs.writeFileSync(path.join(dir, 'memory.memsw.limit_in_bytes'), String(limit)); // no swapping past it either
  } catch {} // no swap accounting here
  return {
    dir,
    /** What the group uses, inactive page cache left out (what the daemon counts too). */
    used() {
      const usage = Number(fs.readFileSync(path.join(dir, 'memory.usage_in_bytes'), 'utf8'));
      const inactive = /^total_inactive_file (\d+)$/m.exec(fs.readFileSync(path.join(dir, 'memory.stat'), 'utf8'));
      return usage - Number(inactive?.[1] ?? 0);
    },
    /** Sets the group's limit (and its memory+swap limit, when there is one). */
    limit(bytes) {
      const memsw = path.join(dir, 'memory.memsw.limit_in_bytes');
      const has = fs.existsSync(memsw);
      // memory+swap may never be below memory: raise it first, lower it last
      if (has && bytes > Number(fs.readFileSync(path.join(dir, 'memory.limit_in_bytes'), 'utf8'))) fs.writeFileSync(memsw, String(bytes));
      fs.writeFileSync(path.join(dir, 'memory.limit_in_bytes'), String(bytes));
      if (has) fs.writeFileSync(memsw, String(bytes));
    },
    /** How many times the group hit its limit and the kernel's OOM killer ran in it. */
    ooms: () => Number(/^oom_kill (\d+)$/m.exec(fs.readFileSync(path.join(dir, 'memory.oom_control'), 'utf8'))?.[1] ?? 0),
    /**
     * `super ...args` inside the group (its shell joins it, then execs node).
     * @param {{home: string}} box
     * @param {string[]} args
     * @param {number} [timeout]
     * @param {Record<string, string>} [env]  added to this process's environment
     * @returns {Promise<{code: number|null, out: string}>}
     */
    cli: (box, args, timeout = 60000, env = {}) => superInCgroup(box, dir, args, { timeout, env }),
  };
}

/** Removes a test's group, moving out whatever is left in it first (bounded). */
export async function removeCgroup(dir) {
  for (let i = 0; i < 100; i++) {
    try {
      fs.rmdirSync(dir);
      return;
    } catch (err) {
      if (err.code === 'ENOENT') return;
      for (const pid of fs.readFileSync(path.join(dir, 'cgroup.procs'), 'utf8').split('\n').filter(Boolean)) {
        try {
          fs.writeFileSync(path.join(V1, 'cgroup.procs'), pid);
        } catch {} // gone meanwhile
      }
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  throw new Error(`could not remove ${dir}`);
}

// The CPU limit of this process's cgroups (a container's `resources.limits.cpu`, systemd's
// CPUQuota=): the CFS bandwidth quota over its period. The affinity mask does not show it:
// a pod limited to 2 CPUs on a 64-core node sees 64 CPUs and is throttled to 2. Each
// ancestor's limit binds too, so the smallest over the process's cgroup and its ancestors
// counts (as Go's container-aware GOMAXPROCS and the JVM's container support read it).
//   v1: cpu.cfs_quota_us (-1: none) / cpu.cfs_period_us, in the hierarchy with `cpu`
//   v2: cpu.max "<quota|max> <period>"
// Where each hierarchy is mounted comes from /proc/self/mountinfo (its root may be a
// subtree: a container sees its own cgroup as the mount's root), the process's cgroup in
// each from /proc/self/cgroup. Synchronous and read once per process: the CLI's check and
// the daemon's config loads (off its loop) resolve `instances: max` with it.
import fs from 'node:fs';
import path from 'node:path';
import { dirsUp } from './cgroup-memory.js';

/**
 * The cgroup mounts of a /proc/self/mountinfo text.
 * @param {string} text
 * @returns {{version: 1|2, root: string, dir: string, controllers: string[]}[]}
 */
export function cgroupMounts(text) {
  const mounts = [];
  for (const line of text.split('\n')) {
    const [left, right] = line.split(' - ');
    if (!right) continue;
    const f = left.split(' ');
    const [fstype, , superOptions = ''] = right.split(' ');
    if (f.length < 5 || (fstype !== 'cgroup' && fstype !== 'cgroup2')) continue;
    mounts.push({ version: fstype === 'cgroup2' ? 2 : 1, root: unescape(f[3]), dir: unescape(f[4]), controllers: superOptions.split(',') });
  }
  return /** @type {{version: 1|2, root: string, dir: string, controllers: string[]}[]} */ (mounts);
}

/** mountinfo writes a space, a tab, a newline and a backslash as octal escapes. */
const unescape = (s) => s.replace(/\\([0-7]{3})/g, (_, o) => String.fromCharCode(parseInt(o, 8)));

/**
 * The directories whose CPU limits bind this process, own cgroup first, each hierarchy up
 * to its mount's root: the v1 hierarchy holding the `cpu` controller and the v2 one.
 * @param {string} procCgroup  text of /proc/self/cgroup
 * @param {string} mountinfo   text of /proc/self/mountinfo
 * @returns {{version: 1|2, dirs: string[]}[]}
 */
export function cpuCgroupDirs(procCgroup, mountinfo) {
  const mounts = cgroupMounts(mountinfo);
  const found = [];
  for (const line of procCgroup.split('\n')) {
    const m = /^(\d+):([^:]*):(\/.*)$/.exec(line);
    if (!m) continue;
    const v2 = m[1] === '0' && m[2] === '';
    const mount = v2
      ? mounts.find((x) => x.version === 2)
      : m[2].split(',').includes('cpu') && mounts.find((x) => x.version === 1 && x.controllers.includes('cpu'));
    if (mount) found.push({ version: mount.version, dirs: ancestors(mount, m[3]) });
  }
  return /** @type {{version: 1|2, dirs: string[]}[]} */ (found);
}

/** The cgroup `cgPath` and its ancestors under `mount`, as directories. */
function ancestors(mount, cgPath) {
  let rel = path.posix.normalize(cgPath);
  // A mount of a subtree (its root not /) holds the paths below that root; inside a
  // cgroup namespace /proc/self/cgroup is already relative to it.
  if (mount.root !== '/' && (rel === mount.root || rel.startsWith(`${mount.root}/`))) rel = rel.slice(mount.root.length) || '/';
  return dirsUp(mount.dir, rel);
}

/**
 * One cgroup directory's CPU limit, or null when it sets none (or its files are absent:
 * a v2 cgroup without the cpu controller, the v2 root).
 * @param {string} dir  @param {1|2} version
 * @returns {{cpus: number, quota: number, period: number, file: string}|null}  cpus: quota/period, unrounded
 */
function cpuLimitIn(dir, version) {
  const read = (name) => {
    try {
      return fs.readFileSync(path.join(dir, name), 'utf8').trim();
    } catch {
      return null;
    }
  };
  let quota;
  let period;
  let file;
  if (version === 1) {
    quota = Number(read('cpu.cfs_quota_us'));
    period = Number(read('cpu.cfs_period_us'));
    file = path.join(dir, 'cpu.cfs_quota_us');
  } else {
    const m = /^(\d+)\s+(\d+)$/.exec(read('cpu.max') ?? ''); // "max 100000" has no limit
    if (!m) return null;
    [quota, period] = [Number(m[1]), Number(m[2])];
    file = path.join(dir, 'cpu.max');
  }
  if (!(quota > 0) || !(period > 0)) return null; // -1 (v1), unreadable, or nonsense
  return { cpus: quota / period, quota, period, file };
}

/**
 * The smallest CPU limit over the given hierarchies' directories, or null when none sets one.
 * @param {{version: 1|2, dirs: string[]}[]} hierarchies
 * @returns {{cpus: number, quota: number, period: number, file: string}|null}  cpus: ceil(quota/period), at least 1
 */
export function smallestCpuLimit(hierarchies) {
  let best = null;
  for (const { version, dirs } of hierarchies) {
    for (const dir of dirs) {
      const limit = cpuLimitIn(dir, version);
      if (limit && (!best || limit.cpus < best.cpus)) best = limit;
    }
  }
  return best && { ...best, cpus: Math.max(1, Math.ceil(best.cpus)) };
}

/**
 * This process's cgroup CPU limit, read once: {cpus, quota, period, file}, or null when no
 * cgroup limits it (or this is not Linux).
 */
export function cgroupCpuLimit() {
  if (mine === undefined) mine = process.platform === 'linux' ? readMine() : null;
  return mine;
}

/** @type {{cpus: number, quota: number, period: number, file: string}|null|undefined} */
let mine;

function readMine() {
  const read = (file) => {
    try {
      return fs.readFileSync(file, 'utf8'); // kernel files, a few KB
    } catch {
      return '';
    }
  };
  return smallestCpuLimit(cpuCgroupDirs(read('/proc/self/cgroup'), read('/proc/self/mountinfo')));
}

/**
 * What `check` and `describe` say of a CPU count the cgroup set: "max = 2: the cgroup's
 * CPU limit (...)"; null when the affinity mask counts (no limit, or a larger one).
 * @param {number} maskCpus  the affinity mask's CPUs
 * @param {{cpus: number, quota: number, period: number, file: string}|null} limit
 */
export function cpuLimitNote(maskCpus, limit) {
  if (!limit || limit.cpus >= maskCpus) return null;
  return `max = ${limit.cpus}: the cgroup's CPU limit (quota ${limit.quota} / period ${limit.period} in ${limit.file}; the affinity mask has ${maskCpus} CPU${maskCpus === 1 ? '' : 's'})`;
}

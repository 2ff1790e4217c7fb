// The memory left to this process's cgroup (a container, or systemd's MemoryMax=): its
// limit minus what it uses, page cache that can be dropped (inactive_file) not counted.
// The host's MemAvailable says nothing of such a limit; at it, the kernel's OOM killer
// acts inside the cgroup. Each ancestor's limit binds too (a slice's MemoryMax= over the
// service's cgroup), so the least left over the process's cgroup and its ancestors counts.
//   v1: memory.limit_in_bytes, memory.usage_in_bytes, memory.stat total_inactive_file
//   v2: memory.max ("max": none), memory.current, memory.stat inactive_file
// Which cgroup is found once (/proc/self/cgroup); the numbers are read at each call, a
// few small files asynchronously: the memory guard asks per start, never per request.
// Shared by the daemon (its memory guard) and the agent (a worker's heap snapshot check).
import fs from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';

const V1_ROOT = '/sys/fs/cgroup/memory';
const V2_ROOT = '/sys/fs/cgroup';
const MAX_DEPTH = 16; // cgroups read, from the process's own up to the mount's root
// v1 says "no limit" with the largest page-aligned counter (9223372036854771712); any
// limit this large is none.
const NO_LIMIT = 2 ** 62;

/**
 * The process's memory cgroup in the text of /proc/self/cgroup: the v1 hierarchy whose
 * controllers include memory, else the v2 one ("0::/path").
 * @returns {{version: 1|2, path: string}|null}
 */
export function parseProcCgroup(text) {
  /** @type {{version: 1|2, path: string}|null} */
  let v2 = null;
  for (const line of text.split('\n')) {
    const m = /^(\d+):([^:]*):(\/.*)$/.exec(line);
    if (!m) continue;
    if (m[2].split(',').includes('memory')) return { version: 1, path: m[3] };
    if (m[1] === '0' && m[2] === '') v2 = { version: 2, path: m[3] };
  }
  return v2;
}

/**
 * The directories of the process's cgroup and its ancestors, own first. Inside a container
 * whose cgroup is mounted as the root, the path /proc/self/cgroup gives does not exist
 * there: the mount's root is the process's cgroup.
 * @param {{version: 1|2, path: string}} cg
 * @param {{v1Root?: string, v2Root?: string}} roots
 * @returns {string[]}
 */
export function cgroupDirs(cg, { v1Root = V1_ROOT, v2Root = V2_ROOT } = {}) {
  const root = cg.version === 1 ? v1Root : v2Root;
  if (cg.version === 2 && !fs.existsSync(path.join(root, 'cgroup.controllers'))) return []; // not a v2 mount
  return dirsUp(root, path.posix.normalize(cg.path));
}

/**
 * The cgroup directory `rel` under the mount at `root` and its ancestors up to the mount's
 * root, own first (at most MAX_DEPTH); a path not visible under the mount (a container's
 * cgroup mounted as the root) is the root itself.
 * @param {string} root  @param {string} rel  a normalized cgroup path
 * @returns {string[]}
 */
export function dirsUp(root, rel) {
  if (!fs.existsSync(path.join(root, rel))) rel = '/';
  const dirs = [];
  for (;;) {
    dirs.push(rel === '/' ? root : path.join(root, rel));
    if (rel === '/' || dirs.length >= MAX_DEPTH) return dirs;
    rel = path.posix.dirname(rel);
  }
}

const FILES = {
  1: { limit: 'memory.limit_in_bytes', usage: 'memory.usage_in_bytes', inactive: 'total_inactive_file' },
  2: { limit: 'memory.max', usage: 'memory.current', inactive: 'inactive_file' },
};

/** `key`'s value in the text of a memory.stat, or 0. */
export function statValue(text, key) {
  const m = new RegExp(`^${key} (\\d+)$`, 'm').exec(text);
  return m ? Number(m[1]) : 0;
}

/**
 * What one cgroup directory leaves: limit - (usage - inactive_file), at least 0; null when
 * it has no limit or its files cannot be read (not a memory cgroup, gone).
 * @param {string} dir
 * @param {1|2} version
 * @returns {Promise<number|null>} bytes
 */
export async function leftIn(dir, version) {
  const f = FILES[version];
  const read = (name) => readFile(path.join(dir, name), 'utf8').catch(() => null);
  const limitText = (await read(f.limit))?.trim();
  if (!limitText || limitText === 'max') return null;
  const limit = Number(limitText);
  if (!Number.isFinite(limit) || limit >= NO_LIMIT) return null;
  const [usageText, stat] = await Promise.all([read(f.usage), read('memory.stat')]);
  const usage = Number(usageText);
  if (usageText === null || !Number.isFinite(usage)) return null;
  const used = Math.max(0, usage - (stat ? statValue(stat, f.inactive) : 0));
  return Math.max(0, limit - used);
}

/**
 * The least any cgroup of `dirs` leaves, or null when none has a limit.
 * @param {string[]} dirs  @param {1|2} version
 */
export async function leastLeft(dirs, version) {
  const left = (await Promise.all(dirs.map((d) => leftIn(d, version)))).filter((n) => n !== null);
  return left.length ? Math.min(...left) : null;
}

let mine; // {dirs, version} of this process's own cgroup, found at the first call

/**
 * `host` bytes available (MemAvailable), or less when this process's cgroup leaves less.
 * @param {number|null} host  @returns {Promise<number|null>} null when neither says
 */
export async function capByCgroup(host) {
  const cgroup = await cgroupAvailable();
  return host === null || cgroup === null ? host ?? cgroup : Math.min(host, cgroup);
}

/** @returns {Promise<number|null>} bytes this process's cgroups leave; null without a limit (or cgroups) */
async function cgroupAvailable() {
  mine ??= await findMine();
  return mine.dirs.length ? leastLeft(mine.dirs, mine.version) : null;
}

async function findMine() {
  const cg = parseProcCgroup(await readFile('/proc/self/cgroup', 'utf8').catch(() => ''));
  return cg ? { dirs: cgroupDirs(cg), version: cg.version } : { dirs: [], version: 2 };
}

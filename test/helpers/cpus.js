// CPU masks as the kernel reports them, for the affinity tests (issue 5).
import fs from 'node:fs';
import { readAllowedCpus, formatCpuList } from '../../lib/config/cpu-set.js';

/** The CPUs this test process may use (the daemon it starts inherits them). */
export const ALLOWED = readAllowedCpus();
export const ALL = formatCpuList(ALLOWED);

/** tid -> Cpus_allowed_list of every thread of `pid` (/proc/<pid>/task/<tid>/status). */
export function threadMasks(pid) {
  const out = new Map();
  for (const tid of fs.readdirSync(`/proc/${pid}/task`)) {
    try {
      const m = /^Cpus_allowed_list:\s*(\S+)/m.exec(fs.readFileSync(`/proc/${pid}/task/${tid}/status`, 'utf8'));
      if (m) out.set(Number(tid), m[1]);
    } catch {} // the thread ended between readdir and read
  }
  return out;
}

/** Asserts-friendly: the distinct masks of all threads of `pid`, and how many threads. */
export function masksOf(pid) {
  const m = threadMasks(pid);
  return { threads: m.size, masks: [...new Set(m.values())].sort() };
}

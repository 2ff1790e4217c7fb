// CPU sets as the ecosystem file writes them (`0`, `[0, 2]`, `"0,2,4-6"`) and as
// taskset(1) and /proc write them (`0,2,4-6`), and the set this process may use.

import fs from 'node:fs';
import os from 'node:os';
import { which } from '../which.js';

/** CPU numbers above this are refused: no machine superd runs on has more, and a typo like 0-99999 should not build a huge list. */
const MAX_CPU = 4095;

/**
 * Parse one CPU set as written in the file.
 * @param {unknown} value  an integer, a list of integers, or a string like "0,2,4-6"
 * @returns {{cpus: number[], error?: undefined} | {error: string, cpus?: undefined}} cpus sorted, without duplicates, never empty
 */
export function parseCpuSet(value) {
  let cpus = [];
  if (Number.isInteger(value)) cpus = [value];
  else if (Array.isArray(value) && value.length && value.every(Number.isInteger)) cpus = value;
  else if (typeof value === 'string' && value.trim()) {
    for (const part of value.split(',')) {
      const m = /^\s*(\d+)\s*(?:-\s*(\d+)\s*)?$/.exec(part);
      if (!m) return { error: `"${part.trim()}" is not a CPU number or a range like 4-6` };
      const lo = Number(m[1]);
      const hi = m[2] === undefined ? lo : Number(m[2]);
      if (hi < lo) return { error: `the range ${lo}-${hi} runs backwards; write ${hi}-${lo}` };
      if (hi > MAX_CPU) return { error: `CPU ${hi} is above ${MAX_CPU}; use the CPU numbers of this machine` };
      for (let c = lo; c <= hi; c++) cpus.push(c);
    }
  } else return { error: 'not a CPU set; write a CPU number, a list like [0, 2] or a range like 0-3' };
  const bad = cpus.find((c) => c < 0 || c > MAX_CPU);
  if (bad !== undefined) return { error: `CPU ${bad} is out of range; use the CPU numbers of this machine` };
  return { cpus: [...new Set(cpus)].sort((a, b) => a - b) };
}

/**
 * The list form taskset and /proc use: [0, 1, 2, 4] -> "0-2,4".
 * @param {number[]} cpus  sorted, without duplicates
 */
export function formatCpuList(cpus) {
  const parts = [];
  for (let i = 0; i < cpus.length; i++) {
    let j = i;
    while (j + 1 < cpus.length && cpus[j + 1] === cpus[j] + 1) j++;
    parts.push(j > i ? `${cpus[i]}-${cpus[j]}` : String(cpus[i]));
    i = j;
  }
  return parts.join(',');
}

/**
 * The CPUs this process may run on (its affinity mask, which containers and taskset
 * narrow), from /proc/self/status on Linux; elsewhere 0..availableParallelism-1.
 * Synchronous: read once at daemon boot and once per CLI run.
 * @returns {number[]}
 */
export function readAllowedCpus() {
  if (process.platform === 'linux') {
    try {
      const m = /^Cpus_allowed_list:\s*(\S+)/m.exec(fs.readFileSync('/proc/self/status', 'utf8'));
      const parsed = m && parseCpuSet(m[1]);
      if (parsed?.cpus) return parsed.cpus;
    } catch {}
  }
  return Array.from({ length: os.availableParallelism() }, (_, i) => i);
}

let support;
/**
 * Why CPU pinning cannot work here, or null when it can (Linux with util-linux's taskset).
 * @returns {string|null}
 */
export function pinningUnsupported() {
  support ??= process.platform !== 'linux'
    ? { why: `CPU pinning needs Linux (this is ${process.platform})` }
    : { why: which('taskset') ? null : 'CPU pinning needs taskset (util-linux), which is not on PATH' };
  return support.why;
}

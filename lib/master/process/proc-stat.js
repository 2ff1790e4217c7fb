// One process as /proc/<pid>/stat says: its process group and its start time (field 22,
// clock ticks since boot), which tells a process from a later one that got its pid.
import fs from 'node:fs';

/** @returns {{pgid: number, start: number}|null} null when the process is gone (or not Linux) */
export function procStat(pid) {
  let text;
  try {
    text = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return null;
  }
  // The command (field 2) is in parentheses and may hold spaces or parentheses itself.
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' '); // fields[0] is field 3
  return { pgid: Number(fields[2]), start: Number(fields[19]) };
}

// One process as /proc/<pid>/stat says: its process group and its start time (field 22,
// clock ticks since boot), which tells a process from a later one that got its pid
// (lib/process-tree.js reads it; its resident memory comes with it).
export { processInfo as procStat } from '../../process-tree.js';

// Launching and ending worker processes: cluster and fork launchers, process groups, the
// one seam to node:cluster's internals (cluster-internals/), and how an exit is described.
export { WorkerProcess, workerProcesses } from './worker-process.js';
export { reapAllNow } from './process-group.js';
export { describeExit } from './exit-text.js';
export { execTools } from './exec-prefix.js';
export { recordGroupsIn, endLeftoverGroups, recordFile } from './group-record.js';
export { startOrphanReaper } from './orphan-reaper.js';
export { protectDaemon } from './oom-score.js';
export { serveInheritedSockets, serveInheritedReusePort, reusePortFds, trackRoundRobinListeners, closeRoundRobinListeners, lastHandoffAt, assertClusterInternals, takenOver } from './cluster-internals/index.js';
export { heldPorts } from './held-ports.js';
export { setSchedulingMode, describePath } from './connection-path.js';

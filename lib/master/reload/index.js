// The reload's face: the pure plan (plan.js) and the one executor that runs it on a host's
// slots (executor.js), for App#reload and App#replaceSlot.
export { planReload, workersThatFit, MEMORY_RESERVE, MEMORY_GROWTH } from './plan.js';
export { runReload, reporter, slotView } from './executor.js';

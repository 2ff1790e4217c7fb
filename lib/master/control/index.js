// The control surface's face: the handlers of every control op (the registry's commands,
// status views, logs, diagnostics, capacity copies), and the log reopening SIGUSR2 shares.
export { makeHandlers } from './handlers.js';
export { reloadAllLogs } from './log-handlers.js';

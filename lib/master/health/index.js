// Health: the monitor (samples, agent reports, rules), the metrics store, Prometheus text,
// and the daemon's own loop statistics.
export { Monitor } from './monitor.js';
export { daemonStats } from './loop-stats.js';
export { MetricsSettings } from './metrics-settings.js';

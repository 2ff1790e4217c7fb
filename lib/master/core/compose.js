// The daemon's parts, built once: each gets its collaborators here, at construction, and
// is added to the lifecycle in the order built, so it closes in the reverse. The daemon's
// settings come first (settings/daemon-settings.js), given to each part that needs them.
// The registry calls none of the others; they hear its events and read it through its
// read-only face (registry.reader).
import { AppRegistry, CronRestarts } from '../apps/index.js';
import { Monitor, MetricsSettings } from '../health/index.js';
import { RemoteControl, DaemonSettings } from '../settings/index.js';
import { WatchManager } from '../watch/index.js';
import { Captures } from '../captures/index.js';
import { Autoscaler } from '../autoscale/index.js';
import { DeployRecord } from '../deploy/index.js';

/**
 * @param {object} o
 * @param {string} o.home
 * @param {import('../../logs/json-logger.js').JsonLogger} o.log
 * @param {object} [o.loadDefaults]  loadEcosystem options for every file the daemon reads
 * @param {string} o.agentPath  the agent preloaded into workers
 * @param {string} o.version
 * @param {import('./lifecycle.js').Lifecycle} o.parts
 * @param {{server: object|null}} o.link  the control server, set once it listens (broadcasts before go nowhere)
 */
export function composeParts({ home, log, loadDefaults, agentPath, version, parts, link }) {
  const broadcast = (topic, data) => link.server?.broadcast(topic, data);
  // The Prometheus text and the workers' memory are asked for later (a scrape, a surge
  // reload), when the monitor below exists.
  const metrics = new MetricsSettings({ log, render: () => monitor.prometheusText(), readiness: (app) => monitor.readiness(app), agentAnswer: (app) => monitor.agentAnswer(app) });
  parts.add('metrics listener', () => metrics.close());
  const control = new RemoteControl({ home, log, server: () => link.server });
  const settings = new DaemonSettings({ home, log, metrics, control, loadDefaults });
  const registry = new AppRegistry({ settings, agentPath, workerMemory: (pids) => monitor.memoryOf(pids) });
  const deploy = new DeployRecord();
  const monitor = new Monitor({
    reader: registry.reader,
    deploy: () => deploy.current,
    settings: metrics,
    replaceSlot: (app, slot, reason) => registry.replaceSlot(app, slot, reason),
    version,
    log,
    broadcast,
    subscribed: (topic) => link.server?.subscribed(topic) ?? false,
    afterSample: (now) => autoscaler.tick(now),
    afterReport: (app, pid, now, interval) => autoscaler.report(app, pid, now, interval),
  });
  parts.add('monitor', () => monitor.close());
  const autoscaler = new Autoscaler({
    reader: registry.reader,
    figures: (pid, now) => monitor.scaleFigures(pid, now),
    fresh: (pid, now) => monitor.scaleFresh(pid, now),
    step: (name, step) => registry.autoscale(name, step),
    log,
  });
  parts.add('autoscaler', () => autoscaler.close());
  const watcher = new WatchManager({
    home,
    reader: registry.reader,
    reload: (name) => registry.reload(name, { keepConfig: true }),
    log,
    emit: (data) => broadcast('watch', data),
  });
  parts.add('watcher', () => watcher.close());
  const cron = new CronRestarts({ reader: registry.reader, reload: (name) => registry.reload(name, { keepConfig: true }), log });
  parts.add('cron restarts', () => cron.close());
  const captures = new Captures({ home, reader: registry.reader, log });
  parts.add('captures', () => captures.close());
  registry.on('worker', (event) => broadcast('worker', event));
  registry.on('reload', (info) => broadcast('reload', info));
  deploy.on('set', (record) => broadcast('deploy', record));
  return { settings, registry, monitor, watcher, cron, captures, metrics, deploy };
}

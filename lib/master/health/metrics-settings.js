// The daemon-wide `metrics:` settings of an ecosystem file: how often workers are sampled
// (`interval`, heard by the monitor through the 'interval' event) and the optional
// Prometheus endpoint (`listen`). The endpoint starts with the first file that names
// `metrics.listen`; changing it needs a daemon restart.
import { EventEmitter } from 'node:events';

export class MetricsSettings extends EventEmitter {
  /**
   * @param {object} o
   * @param {import('../../logs/json-logger.js').JsonLogger} o.log
   * @param {() => Promise<string>} o.render  the Prometheus text of the moment, for each scrape
   * @param {(app: string|null) => object[]|null} o.readiness  for GET /readyz (health/monitor.js)
   * @param {number} [o.interval]  sampling period (ms) until a file says otherwise
   */
  constructor({ log, render, readiness, interval = 1000 }) {
    super();
    this.log = log;
    this.render = render;
    this.readiness = readiness;
    this.interval = interval;
    this.listen = null;
    this.endpoint = null;
  }

  /**
   * Applies a file's (or a dump's) `metrics` settings.
   * @returns {Promise<string[]>} warnings for the `start` reply
   */
  async configure({ listen, interval }) {
    if (interval !== this.interval) {
      this.interval = interval;
      this.emit('interval', interval);
    }
    if (!listen || this.listen === listen) return [];
    if (this.endpoint) return [`metrics.listen changed to ${listen}, but the endpoint keeps serving on ${this.listen} until the daemon restarts`];
    const { startMetricsEndpoint } = await import('./metrics-endpoint.js');
    try {
      this.endpoint = await startMetricsEndpoint(listen, { render: this.render, readiness: this.readiness });
      this.endpoint.on('error', (err) => this.log.error({ err }, 'metrics endpoint error'));
      this.listen = listen;
      this.log.info({ listen }, 'metrics endpoint listening');
      return [];
    } catch (err) {
      this.log.error({ err, listen }, 'metrics endpoint could not listen');
      return [`the metrics endpoint could not listen on ${listen} (${err.code ?? err.message}); apps are started without it`];
    }
  }

  /** The settings in force, as a dump saves them (lib/master/saved/saved-state.js). */
  get settings() {
    return { listen: this.listen, interval: this.interval };
  }

  close() {
    this.endpoint?.close();
    this.endpoint?.closeAllConnections();
  }
}

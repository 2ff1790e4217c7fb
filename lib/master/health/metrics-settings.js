// The daemon-wide `metrics:` settings of an ecosystem file: how often workers are sampled
// (`interval`, heard by the monitor through the 'interval' event) and the optional
// Prometheus endpoint (`listen`). The endpoint starts with the first file that names
// `metrics.listen`; changing it needs a daemon restart. The HAProxy agent-check listener
// (`agent_check`, health/agent-check.js) the same way.
import net from 'node:net';
import { EventEmitter } from 'node:events';

/** The most an upgrade's old daemon waits for its health listeners' last answers. */
const HANDED_OVER_MS = 1000;

export class MetricsSettings extends EventEmitter {
  /**
   * @param {object} o
   * @param {import('../../logs/json-logger.js').JsonLogger} o.log
   * @param {() => Promise<string>} o.render  the Prometheus text of the moment, for each scrape
   * @param {(app: string|null) => object[]|null} o.readiness  for GET /readyz (health/monitor.js)
   * @param {(app: string|null) => string} [o.agentAnswer]  the HAProxy agent's line (health/monitor.js)
   * @param {number} [o.interval]  sampling period (ms) until a file says otherwise
   */
  constructor({ log, render, readiness, agentAnswer = () => 'down # no answer', interval = 1000 }) {
    super();
    this.log = log;
    this.render = render;
    this.readiness = readiness;
    this.agentAnswer = agentAnswer;
    this.interval = interval;
    this.listen = null;
    this.endpoint = null;
    this.agentListen = null;
    this.agentServer = null;
  }

  /**
   * Applies a file's (or a dump's) `metrics` settings.
   * @returns {Promise<string[]>} warnings for the `start` reply
   */
  async configure({ listen, interval, agent_check: agentCheck = null }) {
    if (interval !== this.interval) {
      this.interval = interval;
      this.emit('interval', interval);
    }
    const warnings = agentCheck ? await this.#configureAgent(agentCheck) : [];
    return [...warnings, ...(await this.#configureEndpoint(listen))];
  }

  async #configureEndpoint(listen) {
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

  async #configureAgent(listen) {
    if (this.agentListen === listen) return [];
    if (this.agentServer) return [`metrics.agent_check changed to ${listen}, but the agent keeps answering on ${this.agentListen} until the daemon restarts`];
    const { startAgentCheck } = await import('./agent-check.js');
    try {
      this.agentServer = await startAgentCheck(listen, { answer: this.agentAnswer });
      this.agentServer.on('error', (err) => this.log.error({ err }, 'agent-check listener error'));
      this.agentListen = listen;
      this.log.info({ listen }, 'HAProxy agent-check listening');
      return [];
    } catch (err) {
      this.log.error({ err, listen }, 'agent-check listener could not listen');
      return [`the HAProxy agent-check listener could not listen on ${listen} (${err.code ?? err.message}); apps are started without it`];
    }
  }

  /** The settings in force, as a dump saves them (lib/master/saved/saved-state.js). */
  get settings() {
    return { listen: this.listen, interval: this.interval, ...(this.agentListen && { agent_check: this.agentListen }) };
  }

  /**
   * Stops accepting on the endpoint and the agent (only this process's descriptors: a
   * successor keeps the sockets), and resolves once what they had accepted is answered
   * (at most HANDED_OVER_MS; keep-alive connections still open then are closed): the
   * caller then changes what they would answer (an upgrade's old daemon stops its workers).
   * net.Server's close, not http.Server's, which would also cut idle connections, among
   * them one just accepted whose request is on the wire.
   */
  async stopAccepting() {
    const closed = this.#stopListening().map((s) => new Promise((resolve) => s.once('close', resolve)));
    let timer;
    await Promise.race([Promise.all(closed), new Promise((resolve) => (timer = setTimeout(resolve, HANDED_OVER_MS)))]);
    clearTimeout(timer);
    this.endpoint?.closeAllConnections();
  }

  close() {
    this.#stopListening();
    this.endpoint?.closeAllConnections();
  }

  /** Closes the listening sockets of the endpoint and the agent (net.Server's close); returns the servers closed. */
  #stopListening() {
    const servers = [this.endpoint, this.agentServer].flatMap((s) => (s?.listening ? [s] : []));
    for (const s of servers) net.Server.prototype.close.call(s);
    return servers;
  }
}

// control: {listen, tls, origins} of the ecosystem file (or `super daemon --listen`) ->
// the daemon's TCP control listener (lib/ipc/remote-listener.js). A check-then-apply pair:
// each start checks it with every other setting before any of them is applied.
//
// A running daemon has at most one TCP listener, opened by the first settings that ask
// for one, and kept with those settings until it exits:
//   - settings without control.listen: no opinion, accepted;
//   - no listener open yet: it is opened (a later `super start` can turn it on);
//   - the same listen, tls and origins as the open one: accepted;
//   - anything else: refused with E_CONTROL_FIXED before anything changes (changing who
//     may connect, and how, under live connections is what a restart is for).
// A saved dump (resurrect) never fails over its control settings: a conflict, or a listener
// that cannot be opened, is a warning and its apps start anyway.
import { SuperError } from '../../errors.js';
import { readFileSafe, READ_BOUNDS, UnsafeFileError } from '../../safe-read.js';
import { tokenPath } from '../../home.js';
import { controlListenProblem } from '../../config/control-settings.js';
import { parseListen } from '../../config/listen-address.js';
import { inheritedSocket } from '../upgrade/index.js';

export class RemoteControl {
  /** @param {{home: string, log: import('../../logs/json-logger.js').JsonLogger, server: () => object|null}} o  server: lib/ipc/server.js */
  constructor({ home, log, server }) {
    this.home = home;
    this.log = log;
    this.server = server;
    this.current = null; // the settings of the open listener
    this.opening = null; // serializes concurrent starts
  }

  /** The settings in force, as a dump saves them. */
  get settings() {
    return this.current;
  }

  /**
   * Checks control settings against the daemon's listener; changes nothing. The TLS files
   * are read here, so apply has nothing left to read.
   * @param {{listen: string|null, tls: {cert: string, key: string}|null, origins: string[]}|null|undefined} control
   * @param {string} source  the file (or flag) that asks, for messages
   * @param {{strict?: boolean}} [o]  strict: false (dumps) turns a refusal into a warning
   * @returns {Promise<{open: object|null, source: string, strict: boolean, warnings: string[]}>} the plan
   *   for apply; open: the listener to open (null: none)
   * @throws {SuperError} (strict) E_CONTROL_FIXED, E_CONFIG
   */
  async check(control, source, { strict = true } = {}) {
    /** @type {{open: {wanted: object, tls: object|null}|null, source: typeof source, strict: boolean, warnings: string[]}} */
    const plan = { open: null, source, strict, warnings: [] };
    if (!control?.listen) return plan;
    const wanted = { listen: control.listen, tls: control.tls ?? null, origins: [...(control.origins ?? [])].sort() };
    try {
      this.#checkAgainstCurrent(wanted, source);
      if (!this.current) plan.open = { wanted, tls: await readTls(wanted, source) };
    } catch (err) {
      // A dump's apps start even when its listener cannot be opened (conflict, files gone).
      if (strict) throw err;
      plan.warnings.push(err.message);
    }
    return plan;
  }

  /**
   * Opens the listener check planned (unless a concurrent start opened the same meanwhile).
   * @returns {Promise<string[]>} warnings
   * @throws {SuperError} (strict) E_CONTROL_LISTEN, E_CONTROL_FIXED, E_CONFIG
   */
  async apply({ open, source, strict, warnings }) {
    if (!open) return warnings;
    while (this.opening) await this.opening.catch(() => {});
    try {
      if (this.#checkAgainstCurrent(open.wanted, source)) return warnings;
      this.opening = this.#open(open, source);
      await this.opening;
    } catch (err) {
      if (strict) throw err;
      this.log.error({ err: err.message }, 'control listener of the saved dump not opened');
      return [...warnings, err.message];
    } finally {
      this.opening = null;
    }
    return warnings;
  }

  /**
   * `super token [--rotate]` while this daemon runs: the token its listener accepts (it read
   * the file once, when it opened, and never again), or the file's, created if need be, when
   * no listener is open. rotate: a new token in $SUPER_HOME/token, the only one accepted from
   * the next connection on. null: the file another process was creating vanished at once.
   * @returns {Promise<string|null>}
   */
  async token({ rotate = false } = {}) {
    const { ensureToken, rotateToken } = await import('../../ipc/token.js');
    const remote = this.server()?.remote;
    if (!rotate) return remote ? remote.token() : ensureToken(tokenPath(this.home));
    const token = await rotateToken(tokenPath(this.home));
    remote?.setToken(token);
    this.log.info({}, 'control token rotated');
    return token;
  }

  /** true when the open listener has `wanted`'s settings, false when none is open; throws E_CONTROL_FIXED otherwise. */
  #checkAgainstCurrent(wanted, source) {
    if (!this.current) return false;
    if (same(this.current, wanted)) return true;
    throw new SuperError('E_CONTROL_FIXED', `${source} asks for control ${describe(wanted)}, but this daemon's control listener runs with ${describe(this.current)}; `
      + `to change it without stopping the apps, replace the daemon: \`super upgrade --config ${source}\` (or make the file's control block match)`);
  }

  async #open({ wanted, tls }, source) {
    try {
      const { host, port } = parseListen(wanted.listen);
      const fd = inheritedSocket(host, port); // handed over by `super upgrade`, or by systemd
      await this.server().openRemote({ listen: wanted.listen, tls, origins: wanted.origins, tokenFile: tokenPath(this.home), fd });
    } catch (err) {
      if (err instanceof SuperError) throw err;
      // A certificate or key that node:tls cannot use is a configuration problem.
      throw new SuperError('E_CONFIG', `${source}: control: cannot serve ${wanted.listen}: ${err.message}`);
    }
    this.current = wanted;
  }
}

/** The listen address checked and the TLS files read: {cert, key} buffers, or null without tls. */
async function readTls(wanted, source) {
  const problem = controlListenProblem(wanted.listen, wanted.tls);
  if (problem) throw new SuperError('E_CONFIG', `${source}: control.listen: ${problem}`);
  if (!wanted.tls) return null;
  const tls = {};
  for (const k of ['cert', 'key']) {
    try {
      tls[k] = await readFileSafe(wanted.tls[k], { max: READ_BOUNDS.tls });
    } catch (err) {
      const why = err instanceof UnsafeFileError ? `${err.code}: ${err.reason}` : err.code ?? err.message;
      throw new SuperError('E_CONFIG', `${source}: control.tls.${k}: cannot read ${wanted.tls[k]} (${why})`);
    }
  }
  return tls;
}

const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);

function describe(c) {
  return `listen ${c.listen}${c.tls ? ` with tls (${c.tls.cert})` : ' without tls'}, origins [${c.origins.join(', ')}]`;
}

// The one registry of coded errors.
// Every user-facing failure carries one of these codes, a one-line message
// that says what to do, and the CLI exit status. The error table of docs/cli.md is
// tested against this list (test/unit/errors.test.js).

/** Exit statuses of the `super` CLI. */
export const EXIT = Object.freeze({ OK: 0, FAILED: 1, BAD_INPUT: 2, NO_DAEMON: 3 });

/** @type {Readonly<Record<string, [number, string]>>} code -> [exit status, what it means / what to do] */
export const CODES = Object.freeze({
  E_CONFIG: [EXIT.BAD_INPUT, 'The ecosystem file is invalid; fix the listed problems and run the command again.'],
  E_LOG_PATH: [EXIT.BAD_INPUT, 'A log file of an app cannot be written (missing or unwritable directory); nothing was started. Fix the path or the permissions.'],
  E_USAGE: [EXIT.BAD_INPUT, 'The command line is wrong; see `super <command> --help`.'],
  E_IMPORT: [EXIT.BAD_INPUT, '`super import pm2` cannot read the PM2 dump or ecosystem file (missing, corrupt, not PM2\'s, over a bound), would overwrite an existing file, or would write what superd does not load; the message says what to do.'],
  E_APP_NOT_FOUND: [EXIT.BAD_INPUT, 'No app by that name is known to the daemon; `super ls` lists them.'],
  E_BAD_REQUEST: [EXIT.BAD_INPUT, 'A control message was malformed (not JSON, missing id/op, wrong argument types).'],
  E_UNKNOWN_OP: [EXIT.BAD_INPUT, 'The control channel does not know that operation; the client and daemon may differ in version.'],
  E_FRAME_TOO_LARGE: [EXIT.BAD_INPUT, 'A control message exceeded the frame size limit and the connection was closed.'],
  E_PROTOCOL: [EXIT.BAD_INPUT, 'Client and daemon speak different protocol versions; restart the daemon with `super kill` then `super start`.'],
  E_SCHEDULING_FIXED: [EXIT.BAD_INPUT, 'The daemon runs another cluster scheduling policy (`os` against `auto`, `round-robin` or `reuseport`), fixed at its first start; replace the daemon with `super upgrade --config <file>` to change it (the apps keep serving).'],
  E_STICKY_SCHEDULING: [EXIT.BAD_INPUT, 'An app asks for `sticky:` but the daemon hands connections out with `scheduling: os` or `reuseport` (workers accept by themselves, so the daemon cannot choose one); use scheduling: round-robin or auto.'],
  E_REUSEPORT_UNSUPPORTED: [EXIT.BAD_INPUT, 'The file asks for `scheduling: reuseport` but the daemon\'s Node cannot bind SO_REUSEPORT sockets (Node 22.12+, 23.1+ or 24 on Linux can); use auto or round-robin, or run the daemon on such a Node.'],
  E_CONTROL_FIXED: [EXIT.BAD_INPUT, 'The daemon\'s TCP control listener runs with other settings (control.listen, tls, origins), fixed when it opened; replace the daemon with `super upgrade --config <file>` to change them (the apps keep serving).'],
  E_AUTH: [EXIT.BAD_INPUT, 'The TCP control listener refused the token (401), or no token could be read from --token-file; `super token` on the daemon\'s host prints the current one.'],
  E_ORIGIN: [EXIT.BAD_INPUT, 'The TCP control listener refused the request\'s Origin header (403); add the origin to control.origins.'],
  E_LOCAL_ONLY: [EXIT.BAD_INPUT, 'That operation is only accepted on the daemon\'s local unix socket; run it on the daemon\'s host.'],
  E_RATE_LIMITED: [EXIT.FAILED, 'Too many failed authentications from this address (429); wait a minute, then retry with the right token.'],
  E_CONTROL_LISTEN: [EXIT.FAILED, 'The TCP control listener could not be opened (address in use, not permitted); nothing was started.'],
  E_BUSY: [EXIT.FAILED, 'Another operation is changing that app right now; wait for it to finish and try again.'],
  E_DAEMON_PIN: [EXIT.FAILED, 'The daemon could not pin itself to daemon.cpu_affinity (CPUs it may not use here, or taskset failed); fix daemon.cpu_affinity, or install util-linux.'],
  E_START_FAILED: [EXIT.FAILED, 'A worker could not be started; its error log says why.'],
  E_RELOAD_FAILED: [EXIT.FAILED, 'A replacement worker failed during a reload; the reload stopped and the old workers kept serving.'],
  E_TIMEOUT: [EXIT.FAILED, 'The daemon did not answer in time.'],
  E_INTERNAL: [EXIT.FAILED, 'The daemon hit an unexpected error; see $SUPER_HOME/daemon.log.'],
  E_PERMISSION: [EXIT.FAILED, 'The file system refused access to a file or directory (EACCES, EPERM, EROFS); run as its owner or fix its mode.'],
  E_HOME: [EXIT.FAILED, 'SUPER_HOME cannot be used; check that the directory is yours and writable.'],
  E_DAEMON_RUNNING: [EXIT.FAILED, 'A daemon already runs for this SUPER_HOME.'],
  E_PLATFORM: [EXIT.FAILED, 'The superd daemon runs on Linux only (/proc metrics, taskset, setsid, setpriv); elsewhere the CLI can still talk to a Linux daemon with --host.'],
  E_NODE_INTERNALS: [EXIT.FAILED, 'This Node release changed a node:cluster internal the daemon relies on (docs/architecture.md lists them); the daemon did not start. Run it on a Node release superd supports (20.19+, 22.12+, 24), or a superd release that supports this one.'],
  E_DAEMON_START: [EXIT.NO_DAEMON, 'The daemon could not be started; see $SUPER_HOME/daemon.err for why.'],
  E_DUMP: [EXIT.FAILED, 'The saved process list ($SUPER_HOME/dump.json) is missing, corrupt, or would be replaced by an empty one; the message says what to do.'],
  E_NO_DAEMON: [EXIT.NO_DAEMON, 'No daemon answers on this SUPER_HOME (or at --host); start one with `super start <ecosystem.yml>`.'],
  E_NO_AGENT: [EXIT.BAD_INPUT, 'The worker runs without the superd agent (interpreter: none or another interpreter than node), so it cannot be profiled or snapshotted; only Node workers can.'],
  E_WORKER_EXITED: [EXIT.FAILED, 'The worker exited before its CPU profile or heap snapshot was written; no file was left. Its error log says why it exited.'],
  E_LOW_MEMORY: [EXIT.FAILED, 'A heap snapshot needs about the heap\'s size again in free memory and less is available (the host\'s MemAvailable, or the memory cgroup\'s room); free memory first.'],
  E_DIAGNOSTICS: [EXIT.FAILED, 'The worker could not take the CPU profile or heap snapshot (inspector or file error); the message says why.'],
  E_CAPACITY_NO_PORT: [EXIT.BAD_INPUT, '`super capacity` needs an app that listens on the port its env gives it (PORT, or its increment_var); this app has none, or its copy did not listen there. The running app was not touched.'],
  E_TLS: [EXIT.NO_DAEMON, 'The TLS connection to --host failed (certificate not trusted, wrong name, not a TLS listener); trust the daemon\'s certificate with --tls-ca.'],
  E_UPGRADE_FAILED: [EXIT.FAILED, '`super upgrade`: the new daemon failed to boot or its workers failed readiness; it was stopped and the running daemon kept serving. Its stderr tail says why.'],
  E_DEPLOY_FAILED: [EXIT.FAILED, '`super deploy`: a host\'s step or reload failed, or it did not stay healthy, come back UP or pass --max-error-rate at the balancer; it was reverted (--auto-revert), set ready again with its old workers, or left drained, and the rollout stopped, the hosts not started untouched. Fix it and re-run the same command: it continues.'],
  E_NOT_SUPERD: [EXIT.BAD_INPUT, '`super upgrade --daemon-path DIR`: DIR is not a superd package (no package.json named superd with lib/master/core/daemon.js); nothing changed.'],
});

/** An error that crosses the control channel and ends a CLI with its exit status. */
export class SuperError extends Error {
  /**
   * @param {keyof CODES} code
   * @param {string} message  one line, saying what is wrong and what to do
   * @param {object} [details] structured extras (e.g. config problems)
   */
  constructor(code, message, details) {
    super(message);
    if (!(code in CODES)) throw new TypeError(`unknown error code ${code}`);
    this.name = 'SuperError';
    this.code = code;
    if (details !== undefined) this.details = details;
  }

  get exitStatus() {
    return CODES[this.code][0];
  }

  /** The wire shape: `{code, message, details?}`. */
  toJSON() {
    const out = { code: this.code, message: this.message };
    if (this.details !== undefined) out.details = this.details;
    return out;
  }

  static fromJSON(obj) {
    const code = obj && obj.code in CODES ? obj.code : 'E_INTERNAL';
    return new SuperError(code, String(obj?.message ?? 'unknown error'), obj?.details);
  }
}

// File system errors that only another user, mode or mount can fix: not bad input.
const PERMISSION_ERRNOS = new Set(['EACCES', 'EPERM', 'EROFS']);

/** E_PERMISSION for a permission error of the file system, else `otherwise`. */
export function fileErrorCode(err, otherwise) {
  return PERMISSION_ERRNOS.has(err?.code) ? 'E_PERMISSION' : otherwise;
}

// Runs one CLI command module and turns its outcome into output and an exit status:
// 0 done, 1 the operation failed, 2 bad input, 3 no daemon reachable (lib/errors.js).
import { SuperError, EXIT } from '../errors.js';
import { printError } from './coded-error.js';

// Commands that act on this machine (files, the local daemon's process): never over --host.
// capacity: its load generator runs here and must reach the copy's loopback port.
const LOCAL_ONLY = new Set(['start', 'resurrect', 'run', 'daemon', 'startup', 'unstartup', 'token', 'upgrade', 'capacity']);

export async function runCommand(name, args) {
  // `super logs | head -1`: the reader went away; whatever was left to print is nobody's.
  process.stdout.on('error', (err) => {
    if (err.code === 'EPIPE') process.exit(EXIT.OK);
    throw err;
  });
  /** @type {number} */
  let status = EXIT.OK;
  try {
    if (process.env.SUPER_HOST && LOCAL_ONLY.has(name)) {
      throw new SuperError('E_USAGE', `super ${name} acts on this machine and cannot be used with --host (or SUPER_HOST); run it on the daemon's host`);
    }
    const mod = await import(`./commands/${name}.js`);
    status = (await mod.default(...args)) ?? EXIT.OK;
  } catch (err) {
    status = printError(err);
  }
  process.exitCode = status;
  // A pipe holds 64 KiB: what did not fit waits in this process until the reader takes it.
  // Exit once stdout and stderr have drained, then promptly, even if a socket lingers in close.
  await Promise.all([drained(process.stdout), drained(process.stderr)]);
  process.exit(status);
}

/** Resolves once everything written to `stream` so far has left the process (or cannot). */
function drained(stream) {
  if (!stream.writableLength || stream.destroyed) return;
  return new Promise((resolve) => stream.write('', resolve));
}

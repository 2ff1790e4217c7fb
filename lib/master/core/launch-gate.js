// `super start <file>` may launch the daemon while it still checks the file, so that the
// daemon loads its modules meanwhile (lib/ctl/launch-daemon.js). Such a daemon is started
// with SUPER_LAUNCH_GATE=1 and waits here, before it touches SUPER_HOME, for the CLI's word:
// go on, or (a bad file: the CLI closes the IPC channel) exit without a trace.
import { LAUNCH, GATE_ENV } from '../../ipc/launch-protocol.js';

/** Resolves true at once when not gated; else once the launching CLI says go (false: it never will). */
export function launchGateOpened() {
  if (process.env[GATE_ENV] !== '1') return Promise.resolve(true);
  delete process.env[GATE_ENV]; // not for the apps
  if (!process.connected) return Promise.resolve(false);
  return new Promise((resolve) => {
    const settle = (go) => {
      process.off('message', onMessage);
      process.off('disconnect', onDisconnect);
      resolve(go);
    };
    const onMessage = (m) => m?.cmd === LAUNCH.GO && settle(true);
    const onDisconnect = () => settle(false);
    process.on('message', onMessage);
    process.on('disconnect', onDisconnect);
  });
}

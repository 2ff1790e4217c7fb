// The handshake between `super start` and the daemon it launches detached, in one place: the
// CLI's side is lib/ctl/launch-daemon.js, the daemon's lib/master/core/ (launch-gate.js,
// daemon.js). It runs over the IPC channel of the spawn, which the daemon closes once ready.
//
//   daemon -> CLI  READY   {pid}            its control socket listens: connect
//   daemon -> CLI  FAILED  {error: {code, message}}  it cannot boot (said before it exits:
//                                           a full disk can leave daemon.err empty)
//   CLI -> daemon  GO                       a daemon launched with GATE_ENV=1 (while the
//                                           CLI still checks the file) may touch SUPER_HOME;
//                                           the CLI closing the channel instead sends it away
// A daemon that lost the race for the pid file to another one exits EXIT_ALREADY_RUNNING:
// its CLI connects to the winner.

export const LAUNCH = Object.freeze({
  READY: 'super:daemon-ready',
  FAILED: 'super:daemon-failed',
  GO: 'super:daemon-go',
});

/** The environment variable that holds a launched daemon until GO. */
export const GATE_ENV = 'SUPER_LAUNCH_GATE';

/** Exit status of a daemon that lost the race to another one (the CLI then just connects). */
export const EXIT_ALREADY_RUNNING = 10;

export const readyMessage = (pid) => ({ cmd: LAUNCH.READY, pid });
export const failedMessage = (code, message) => ({ cmd: LAUNCH.FAILED, error: { code, message } });
export const goMessage = () => ({ cmd: LAUNCH.GO });

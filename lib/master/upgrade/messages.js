// The messages between a daemon and the successor it starts for `super upgrade`, over the
// successor's IPC channel (names never start with NODE_: Node keeps those for itself).
//   old -> new  {superd: 'upgrade', step: 'state', state}   apps and daemon settings to run
//   new -> old  {superd: 'upgrade', step: 'progress', text}  for the CLI
//   new -> old  {superd: 'upgrade', step: 'ready'}           every app ready and past probation
//   old -> new  {superd: 'upgrade', step: 'commit'}          take the control socket and pid file
//   new -> old  {superd: 'upgrade', step: 'committed'}       done: the old daemon retires
//   new -> old  {superd: 'upgrade', step: 'failed', message, failed?}  then it stops and exits 1
const TAG = 'upgrade';
export const message = (step, extra = {}) => ({ superd: TAG, step, ...extra });
export const isStep = (m, step) => m?.superd === TAG && m.step === step;

// super daemon [--foreground] [--resurrect]: this process becomes the daemon, in the
// foreground (systemd, containers). --foreground is the only mode and is accepted so unit
// files say what they mean; --resurrect starts the apps of $SUPER_HOME/dump.json.
export default async function daemon(opts = {}) {
  const { startDaemon } = await import('../../master/daemon.js');
  await startDaemon({ resurrect: Boolean(opts.resurrect) });
  return new Promise(() => {}); // the daemon exits the process itself
}

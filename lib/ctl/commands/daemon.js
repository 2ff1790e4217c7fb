// super daemon: this process becomes the daemon, in the foreground (systemd, containers).
export default async function daemon() {
  await import('../../master/daemon.js');
  return new Promise(() => {}); // the daemon exits the process itself
}

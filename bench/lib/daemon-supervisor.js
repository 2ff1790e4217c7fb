// Plays systemd for the soak: runs `super daemon --foreground --resurrect` as a child and
// starts it again whenever it exits (Restart=always, RestartSec=100ms), until stop().
// The child gets its own process group, so a Ctrl-C at the terminal reaches only the
// soak driver, which then stops the daemon itself.
import fs from 'node:fs';
import { spawn } from 'node:child_process';

export class DaemonSupervisor {
  /** @param {{argv: string[], env: object, cwd: string, logFile: string, restartDelayMs?: number}} o */
  constructor({ argv, env, cwd, logFile, restartDelayMs = 100 }) {
    this.argv = argv;
    this.env = env;
    this.cwd = cwd;
    this.logFile = logFile;
    this.restartDelayMs = restartDelayMs;
    this.lives = []; // {pid, startedAt, exitedAt, code, signal}
    this.child = null;
    this.stopping = false;
    this.waiters = [];
  }

  get pid() {
    return this.child?.pid ?? null;
  }

  start() {
    const fd = fs.openSync(this.logFile, 'a');
    const child = spawn(this.argv[0], this.argv.slice(1), { cwd: this.cwd, env: this.env, detached: true, stdio: ['ignore', fd, fd] });
    fs.closeSync(fd);
    const life = { pid: child.pid, startedAt: Date.now(), exitedAt: null, code: null, signal: null };
    this.lives.push(life);
    this.child = child;
    child.once('exit', (code, signal) => {
      Object.assign(life, { exitedAt: Date.now(), code, signal });
      if (this.child === child) this.child = null;
      for (const w of this.waiters.splice(0)) w(life);
      if (!this.stopping) setTimeout(() => this.stopping || this.start(), this.restartDelayMs);
    });
    return child.pid;
  }

  /** Resolves with the life record of the next daemon exit. */
  nextExit() {
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** SIGTERM (graceful: the daemon stops its apps), SIGKILL to its group after `timeout` ms. */
  async stop(timeout = 30000) {
    this.stopping = true;
    const child = this.child;
    if (!child) return;
    const exited = this.nextExit();
    try {
      process.kill(child.pid, 'SIGTERM');
    } catch { /* gone */ }
    const timer = setTimeout(() => {
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch { /* gone */ }
    }, timeout);
    await exited;
    clearTimeout(timer);
  }
}

// Headless Chromium (Debian's `chromium` package) driven by playwright-core, for the
// dashboard's browser tests, its screenshot and its cost bench; and the `super dashboard`
// process they look at. Chromium is started with everything that would reach the network
// by itself turned off (updates, sync, field trials), and a fresh profile each time.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const CHROMIUM = '/usr/bin/chromium';
const SUPER = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'bin', 'super.js');

/** Why the browser cannot run here, or null. */
export const noChromium = () => (fs.existsSync(CHROMIUM) ? null : `${CHROMIUM} is missing (Debian: apt-get install chromium; .ci/run installs it)`);

/** A browser context with a fresh profile: {context, newPage(), close()}. */
export async function launchChromium({ viewport = { width: 1280, height: 900 } } = {}) {
  const { chromium } = await import('playwright-core');
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'sd-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    viewport,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync'],
  });
  return {
    context,
    newPage: () => context.newPage(),
    async close() {
      await context.close().catch(() => {});
      fs.rmSync(profile, { recursive: true, force: true });
    },
  };
}

/**
 * Starts `super dashboard` for SUPER_HOME `home` and resolves once it prints its link:
 * {url (with the token), base, token, pid, child, stop()}.
 */
export function startDashboard(home, args = [], { env = {} } = {}) {
  const child = spawn(process.execPath, [SUPER, 'dashboard', ...args], { env: { ...process.env, SUPER_HOME: home, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => fail(new Error('super dashboard printed no link within 15 s')), 15000);
    const fail = (e) => {
      clearTimeout(timer);
      child.kill('SIGKILL');
      reject(new Error(`${e.message}\nstdout: ${out}\nstderr: ${err}`));
    };
    child.stderr.on('data', (d) => (err += d));
    child.on('exit', (code) => fail(new Error(`super dashboard exited with ${code}`)));
    child.stdout.on('data', (d) => {
      out += d;
      const m = /(https?:\/\/\S+?\/)(#token=([0-9a-f]{64}))?\n/.exec(out);
      if (!m) return;
      clearTimeout(timer);
      child.removeAllListeners('exit');
      resolve({
        url: m[0].trim(), base: m[1], token: m[3] ?? null, pid: child.pid, child,
        stderr: () => err,
        stop: () => new Promise((res) => {
          if (child.exitCode !== null || child.signalCode !== null) return res(child.exitCode);
          child.once('exit', (code) => res(code));
          child.kill('SIGTERM');
        }),
      });
    });
  });
}

// super dashboard: the live web dashboard (lib/dashboard/), a process of its own that talks
// to the daemons over their control channel and serves one page. Runs until SIGINT/SIGTERM.
import fs from 'node:fs';
import path from 'node:path';
import { SuperError } from '../../errors.js';
import { superHome, prepareHome } from '../../home.js';
import { parseListen } from '../../config/listen-address.js';

const DEFAULT_LISTEN = '127.0.0.1:9615';
const LOCAL = 'local';

/**
 * @param {{listen?: string, hosts?: string[], readOnly?: boolean, insecureHttp?: boolean,
 *   tlsCert?: string, tlsKey?: string, origin?: string[], open?: boolean}} opts
 *   hosts: the --host values (bin/super.js collects every one); "local" = this SUPER_HOME's daemon
 */
export default async function dashboard(opts = {}) {
  const listen = opts.listen ?? DEFAULT_LISTEN;
  if (!/^(\[[0-9A-Fa-f:.]+\]|[^\s:[\]/]+):[0-9]{1,5}$/.test(listen)) throw new SuperError('E_USAGE', `--listen ${listen}: give host:port, like 127.0.0.1:9615`);
  const { host, port } = parseListen(listen);
  if (port > 65535) throw new SuperError('E_USAGE', `--listen ${listen}: port ${port} is out of range`);
  const { accessPolicy } = await import('../../dashboard/access.js');
  let origins;
  try {
    origins = (opts.origin ?? []).map((o) => new URL(o).origin);
  } catch {
    throw new SuperError('E_USAGE', `--origin: give origins like https://dash.example.com:9615`);
  }
  const tlsFiles = Boolean(opts.tlsCert || opts.tlsKey);
  if (tlsFiles && !(opts.tlsCert && opts.tlsKey)) throw new SuperError('E_USAGE', 'TLS needs both --tls-cert and --tls-key');
  const policy = accessPolicy({ host, port, tls: tlsFiles, origins, readOnly: Boolean(opts.readOnly) });
  if (!policy.loopback && !tlsFiles && !opts.insecureHttp) {
    throw new SuperError('E_USAGE', `--listen ${listen} is reachable from other machines: give --tls-cert and --tls-key (or --insecure-http behind a TLS proxy you trust)`);
  }
  const tls = tlsFiles ? { cert: readPem(opts.tlsCert, '--tls-cert'), key: readPem(opts.tlsKey, '--tls-key') } : null;

  const home = superHome();
  prepareHome(home);
  // A new token at every start: a link seen or stolen earlier stops working when the
  // dashboard restarts. The file (0600) lets its user find the token again meanwhile.
  const { rotateToken } = await import('../../ipc/token.js');
  const token = await rotateToken(path.join(home, 'dashboard-token'));
  const { OneTimeCodes } = await import('../../dashboard/open-codes.js');
  const codes = new OneTimeCodes();

  const links = await hostLinks(opts.hosts ?? [], home);
  const { Hub } = await import('../../dashboard/hub.js');
  const { startServer } = await import('../../dashboard/server.js');
  const hub = new Hub(links);
  let server;
  try {
    server = await startServer({ hub, policy, token, host, port, tls, codes });
  } catch (err) {
    hub.close();
    throw new SuperError('E_USAGE', `cannot listen on ${listen}: ${err.code ?? err.message}${err.code === 'EADDRINUSE' ? ' (another process holds it; choose another with --listen)' : ''}`);
  }
  for (const link of links) link.start();

  const base = `${tls ? 'https' : 'http'}://${listen.replace(/^0\.0\.0\.0:|^\[::\]:/, 'localhost:')}/`;
  // The token rides in the fragment: browsers never send it to a server or a log.
  process.stdout.write(`super dashboard: ${base}#token=${token}\n  ${links.map((l) => l.name).join(', ')}; ${policy.readOnly ? 'read-only; ' : ''}seeing and acting need the token in the link (a new one at every start); Ctrl-C stops it\n`);
  // A program's arguments are readable by every local user: the browser gets a one-time
  // code, never the token.
  if (opts.open) openBrowser(`${base}#code=${codes.issue()}`);

  await new Promise((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  hub.close();
  await server.close();
  return 0;
}

function readPem(file, flag) {
  try {
    return fs.readFileSync(file);
  } catch (err) {
    throw new SuperError('E_USAGE', `${flag} ${file}: cannot read it (${err.code ?? err.message})`);
  }
}

/** One HostLink per --host ("local", or host:port with the global token and TLS flags). */
async function hostLinks(hosts, home) {
  const { HostLink } = await import('../../dashboard/host-link.js');
  const names = [...new Set(hosts.length ? hosts : [process.env.SUPER_HOST || LOCAL])];
  if (names.length > 32) throw new SuperError('E_USAGE', 'at most 32 --host');
  const { remoteTarget } = await import('../remote-target.js');
  const links = [];
  for (const name of names) {
    if (name === LOCAL) {
      links.push(new HostLink({ name, home }));
      continue;
    }
    const env = { ...process.env, SUPER_HOST: name };
    // bad host:port or token file: refused now, not at every retry
    const target = await remoteTarget(env);
    if (!target) throw new SuperError('E_USAGE', `--host "${name}": give host:port, like 10.0.0.5:9615 or [::1]:9615`);
    target.where.socket?.destroy();
    links.push(new HostLink({ name, home, remote: () => remoteTarget(env) }));
  }
  return links;
}

/**
 * --open: the program of $BROWSER (as xdg-open reads it), else xdg-open; a failure is only
 * said. The link it gets holds a one-time code, no secret.
 */
async function openBrowser(url) {
  const { spawn } = await import('node:child_process');
  const program = process.env.BROWSER?.split(':')[0] || 'xdg-open';
  const child = spawn(program, [url], { stdio: 'ignore', detached: true });
  child.on('error', (/** @type {NodeJS.ErrnoException} */ err) => process.stderr.write(`super dashboard: --open: cannot run ${program} (${err.code}); open the link yourself\n`));
  child.unref();
}

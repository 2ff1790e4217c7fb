// HAProxy's runtime API (its `stats socket ... level admin`), as `super deploy` uses it: one
// command per connection, its answer read to the end. A unix socket path, or host:port.
import net from 'node:net';
import { SuperError } from '../errors.js';
import { parseListen } from '../config/listen-address.js';

const TIMEOUT_MS = 5000;
const MAX_ANSWER = 4 * 1024 * 1024; // `show stat` of a large config stays well below

/**
 * The numeric columns of one server's row of a `show stat` answer (CSV, its header first).
 * @returns {Record<string, number>}
 */
function statOf(stat, backend, server) {
  const [head, ...rows] = stat.split('\n');
  const cols = head.replace(/^# /, '').split(',');
  const row = rows.map((r) => r.split(',')).find((f) => f[cols.indexOf('pxname')] === backend && f[cols.indexOf('svname')] === server);
  /** @type {Record<string, number>} */
  const out = {};
  if (row) for (const [i, name] of cols.entries()) if (/^\d+$/.test(row[i] ?? '')) out[name] = Number(row[i]);
  return out;
}

/**
 * @param {string} address  a unix socket path, or host:port
 */
export function haproxyRuntime(address) {
  const where = /^[^/]+:\d{1,5}$/.test(address) ? parseListen(address) : { path: address };
  /** One command's answer. */
  const command = (cmd) => new Promise((resolve, reject) => {
    const c = net.connect(/** @type {any} */ (where), () => c.end(`${cmd}\n`));
    let out = '';
    c.setTimeout(TIMEOUT_MS, () => c.destroy(new Error(`no answer within ${TIMEOUT_MS} ms`)));
    c.on('data', (d) => {
      out += d;
      if (out.length > MAX_ANSWER) c.destroy(new Error('answer too large'));
    });
    c.on('end', () => resolve(out));
    c.on('error', (err) => reject(new SuperError('E_USAGE', `HAProxy's runtime API at ${address}: ${/** @type {any} */ (err).code ?? err.message} (give its \`stats socket\` with level admin)`)));
  });
  return {
    command,
    /**
     * One server's state: op (0 down, 2 up, ...), admin (0 ready; drain/maint set bits),
     * weight, sessions (current: `show stat` scur).
     * @returns {Promise<{op: number, admin: number, weight: number, sessions: number}>}
     */
    async server(backend, server) {
      const [state, stat] = await Promise.all([command(`show servers state ${backend}`), command('show stat')]);
      const lines = state.split('\n');
      const header = lines.find((l) => l.startsWith('# be_id'))?.slice(2).split(' ') ?? [];
      const row = lines.map((l) => l.split(' ')).find((r) => /^\d+$/.test(r[0]) && r[header.indexOf('srv_name')] === server);
      if (!row) throw new SuperError('E_USAGE', `HAProxy has no server ${backend}/${server} (${state.trim().split('\n')[0] || 'no answer'})`);
      const num = (name) => Number(row[header.indexOf(name)]);
      return { op: num('srv_op_state'), admin: num('srv_admin_state'), weight: num('srv_uweight'), sessions: statOf(stat, backend, server).scur ?? 0 };
    },
    /**
     * One server's `show stat` counters by column name (scur, hrsp_5xx, eresp, chkfail, ...);
     * an empty column (not counted for this server) is left out.
     * @returns {Promise<Record<string, number>>}
     */
    async stat(backend, server) {
      return statOf(await command('show stat'), backend, server);
    },
    /** `set server <backend>/<server> state <drain|ready|maint>`; rejects with HAProxy's words when it refuses. */
    async setState(backend, server, state) {
      const answer = (await command(`set server ${backend}/${server} state ${state}`)).trim();
      if (answer) throw new SuperError('E_USAGE', `HAProxy refused \`set server ${backend}/${server} state ${state}\`: ${answer}`);
    },
  };
}

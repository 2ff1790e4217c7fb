// What a page may ask of a daemon through the dashboard, checked here before anything is
// sent: one of ACTIONS, on a host this dashboard knows, with arguments of the right shape.
// "describe" (an app's settings, secrets masked by the daemon and again here) only needs to see; the rest
// change something and need the token (lib/dashboard/access.js).
import os from 'node:os';
import path from 'node:path';
import fs from 'node:fs';
import { fetchDiagnostic } from '../profiles/fetch-file.js';
import { maskConfig } from '../mask-secrets.js';
import { bounded } from '../ipc/daemon-input.js';

const PROFILE_MS = 10_000;
const APP_RE = /^[^\p{Cc}\p{Zl}\p{Zp}/]{1,64}$/u; // as config/schema.json's app name

/** action -> {changes: whether it needs the token, args: extra checks} */
export const ACTIONS = Object.freeze({
  describe: { changes: false },
  reload: { changes: true },
  restart: { changes: true },
  stop: { changes: true },
  start: { changes: true },
  scale: { changes: true, check: (m) => typeof m.count === 'string' && /^[+-]?\d{1,4}$/.test(m.count) },
  profile: { changes: true, check: (m) => slotOk(m.slot) },
  heap: { changes: true, check: (m) => slotOk(m.slot) },
});

const slotOk = (s) => Number.isSafeInteger(s) && s >= 0 && s < 1024;

/**
 * A page's action message checked: null when it is well formed, else why not.
 * @param {object} m  {type: "action", id, action, host, app, slot?, count?}
 */
export function actionProblem(m, hostNames) {
  if (!Number.isSafeInteger(m.id)) return 'an action needs an integer id';
  if (!Object.hasOwn(ACTIONS, m.action)) return `unknown action "${String(m.action).slice(0, 40)}"`;
  if (!hostNames.includes(m.host)) return 'unknown host';
  if (typeof m.app !== 'string' || !APP_RE.test(m.app)) return 'an action needs an app name';
  const { check } = ACTIONS[m.action];
  if (check && !check(m)) return `bad arguments for ${m.action}`;
  return null;
}

/**
 * Runs a checked action on `link`'s daemon. Resolves with the reply's data; describe with
 * {config, series} (the app's workers' history, from `history`); profile and heap with
 * {file, bytes, url} of the file now on this machine (registered by `offer` for download).
 * onProgress gets a reload's steps.
 */
export async function runAction(link, m, { onProgress, offer, history }) {
  const target = m.app;
  switch (m.action) {
    case 'describe': {
      // masked again here: a daemon of an older version, or of another host, may not have
      const config = (await link.request('describe', { app: m.app }))?.app?.config;
      return { config: config && typeof config === 'object' ? maskConfig(bounded(config)) : null, series: history(m.host, m.app) };
    }
    case 'reload': return link.request('reload', { target }, { timeout: 0, onProgress });
    case 'restart': return link.request('restart', { target }, { timeout: 0 });
    case 'stop': return link.request('stop', { target }, { timeout: 0 });
    case 'start': return link.request('start-apps', { target }, { timeout: 0 });
    case 'scale': return link.request('scale', { app: m.app, count: m.count }, { timeout: 0 });
    case 'profile':
    case 'heap': {
      const args = m.action === 'profile' ? { app: m.app, slot: m.slot, duration: PROFILE_MS } : { app: m.app, slot: m.slot };
      const data = await link.request(m.action, args, { timeout: PROFILE_MS + 120_000 });
      if (!data.files.length) throw Object.assign(new Error(data.failed?.[0]?.message ?? 'no file was written'), { code: data.failed?.[0]?.code ?? 'E_INTERNAL' });
      const f = data.files[0];
      let file = f.path;
      if (link.remote) {
        // the daemon's disk is elsewhere: fetch the file into a private directory here
        const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'super-dashboard-'));
        file = path.join(dir, path.basename(f.path));
        await fetchDiagnostic(link.client, f.path, file);
      }
      return { file: path.basename(file), bytes: f.bytes, url: offer(file, { owned: Boolean(link.remote) }) };
    }
    default: throw new Error(`unknown action ${m.action}`);
  }
}

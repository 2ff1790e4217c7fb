// super ls [--json] (aliases: list, status; `jlist` is ls --json, `prettylist` indented JSON)
import { request } from '../session.js';
import { renderLs, lsJson } from '../render-ls.js';
import { checkApps } from '../../ipc/daemon-input.js';

export default async function ls(opts = {}) {
  // checked: a daemon of another host or version may answer anything
  const data = checkApps(await request('ls'), { trim: false });
  if (opts.pretty) process.stdout.write(`${JSON.stringify(lsJson(data), null, 2)}\n`);
  else process.stdout.write(opts.json ? `${JSON.stringify(lsJson(data))}\n` : `${renderLs(data)}\n`);
}

// super ls [--json] (aliases: list, status; `jlist` is ls --json, `prettylist` indented JSON)
import { request } from '../session.js';
import { renderLs, lsJson } from '../render-ls.js';

export default async function ls(opts = {}) {
  const data = await request('ls');
  if (opts.pretty) process.stdout.write(`${JSON.stringify(lsJson(data), null, 2)}\n`);
  else process.stdout.write(opts.json ? `${JSON.stringify(lsJson(data))}\n` : `${renderLs(data)}\n`);
}

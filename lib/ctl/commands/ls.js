// super ls [--json]  (alias: status)
import { request } from '../session.js';
import { renderLs, lsJson } from '../render-ls.js';

export default async function ls(opts) {
  const data = await request('ls');
  process.stdout.write(opts.json ? `${JSON.stringify(lsJson(data))}\n` : `${renderLs(data)}\n`);
}

// super logs [app|all] [--lines N] [--follow|-f] [--out|--err] [--json|--raw] [--since 10m]
// Prints the last N lines of each selected file, then with -f follows them until Ctrl-C.
// Following goes over the control channel (the daemon reads the files in chunks and skips
// for a reader that is too slow), so it works the same for a remote client.
import { connectDaemon } from '../session.js';
import { SuperError } from '../../errors.js';
import { parseDuration } from '../../config/units.js';
import { makeRenderer, colorWanted } from '../render-log.js';
import { printError } from '../coded-error.js';

export default async function logs(target = 'all', opts = {}) {
  const args = { target, follow: Boolean(opts.follow) };
  if (opts.lines !== undefined) {
    const n = Number(opts.lines);
    if (!Number.isInteger(n) || n < 0 || n > 100000) throw new SuperError('E_USAGE', `--lines ${opts.lines}: give a whole number from 0 to 100000`);
    args.lines = n;
  }
  if (opts.out && !opts.err) args.stream = 'out';
  if (opts.err && !opts.out) args.stream = 'err';
  if (opts.since !== undefined) args.since = parseSince(opts.since);

  if (opts.json && opts.raw) throw new SuperError('E_USAGE', '--json and --raw: give one of them');
  const render = makeRenderer({ json: Boolean(opts.json), raw: Boolean(opts.raw), color: colorWanted(process.stdout) });
  const client = await connectDaemon();
  let data;
  try {
    data = await client.request('logs', args);
  } catch (err) {
    client.close();
    throw err;
  }
  for (const f of data.files) {
    if (f.lines.length) process.stdout.write(f.lines.map((l) => render(f.app, f.slot, f.stream, l)).join(''));
  }
  if (!args.follow) {
    client.close();
    return undefined;
  }

  return new Promise((resolve) => {
    const stop = () => {
      client.close();
      resolve(0);
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    client.onEvent((e) => {
      if (e.closed) {
        resolve(printError(new SuperError('E_NO_DAEMON', `the daemon closed the connection (${e.code}); no longer following`)));
        return;
      }
      if (e.event !== 'log') return;
      const d = e.data;
      if (d.skipped) {
        if (opts.json) process.stdout.write(`${JSON.stringify({ app: d.app, slot: d.slot, stream: d.stream, skipped: d.skipped })}\n`);
        else process.stderr.write(`super: skipped ${d.skipped} lines of ${d.app}${d.slot === null ? '' : `#${d.slot}`} ${d.stream}: this output was read slower than the app wrote\n`);
        return;
      }
      const lines = d.text.split('\n');
      lines.pop(); // text ends with a newline
      const readAt = Date.now();
      // Backpressure: while stdout is full, stop reading; the daemon then skips, not queues.
      if (!process.stdout.write(lines.map((l) => render(d.app, d.slot, d.stream, l, readAt)).join(''))) {
        client.pause();
        process.stdout.once('drain', () => client.resume());
      }
    });
  });
}

/** `10m`, `2h`, `30s` ago, or a date (ISO 8601) -> epoch ms. */
function parseSince(v) {
  const ago = parseDuration(v);
  if (ago !== undefined && /[a-z]$/i.test(v.trim())) return Date.now() - ago;
  const t = Date.parse(v);
  if (Number.isFinite(t)) return t;
  throw new SuperError('E_USAGE', `--since ${v}: give a duration like 30s, 10m or 2h, or a date like 2026-01-31T12:00:00Z`);
}

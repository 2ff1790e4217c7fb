// super logs [app|all] [--lines N] [--follow|-f] [--out|--err] [--json|--raw] [--since 10m]
// Prints the last N lines of each selected file, then with -f follows them until Ctrl-C.
// Following goes over the control channel (the daemon reads the files in chunks and skips
// for a reader that is too slow), so it works the same for a remote client.
import { connectDaemon } from '../session.js';
import { SuperError } from '../../errors.js';
import { parseDuration } from '../../config/units.js';
import { makeRenderer, colorWanted, earlierLines } from '../render-log.js';
import { printError } from '../coded-error.js';

export default async function logs(target = 'all', opts = {}) {
  if (opts.nostream && opts.follow) throw new SuperError('E_USAGE', '--nostream prints and exits, -f follows: give one of them');
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
  let client;
  try {
    client = await connectDaemon();
  } catch (err) {
    // No daemon here: the files are still on disk (a remote daemon's are not ours to read).
    if (err.code !== 'E_NO_DAEMON' || process.env.SUPER_HOST) throw err;
    return logsWithoutDaemon(args, render);
  }
  let data;
  try {
    data = await client.request('logs', args);
  } catch (err) {
    client.close();
    throw err;
  }
  printTails(data.files, render, args);
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

/** Each file's lines; for an app that has none, where its files are (so "nothing" is not a mystery). */
function printTails(files, render, args) {
  const byApp = new Map();
  for (const f of files) {
    if (f.lines.length) process.stdout.write(fileText(f, render));
    const seen = byApp.get(f.app) ?? { lines: 0, paths: [] };
    seen.lines += f.lines.length;
    seen.paths.push(f.path);
    byApp.set(f.app, seen);
  }
  for (const [app, { lines, paths }] of byApp) {
    if (lines > 0 || args.lines === 0) continue;
    const what = args.since !== undefined ? `no line since ${new Date(args.since).toISOString()}` : 'no output yet';
    process.stderr.write(`super: ${app}: ${what}; its log files: ${paths.map(quoted).join(', ')}\n`);
  }
}

/**
 * A file's lines; where the daemon says the first of them (`earlier`) were written before the
 * app's current workers started (a failed earlier start's), a line saying when they started
 * follows those: a healthy app must not look broken.
 */
function fileText(f, render) {
  const { earlier, at } = earlierLines(f);
  const out = f.lines.map((l, i) => render(f.app, f.slot, f.stream, l, undefined, i < earlier));
  if (earlier) {
    out.splice(earlier, 0, render.note(`── ${f.app}${f.slot === null ? '' : `#${f.slot}`} workers started ${at} (this run) ──`));
  }
  return out.join('');
}

const quoted = (p) => (/[\s'"]/.test(p) ? JSON.stringify(p) : p);

/** The tail of the files of the apps `args.target` names, read here; following needs a daemon. */
async function logsWithoutDaemon(args, render) {
  const [{ offlineLogFiles }, { tailFiles }, { superHome }] = await Promise.all([
    import('../offline-logs.js'), import('../../logs/tail.js'), import('../../home.js'),
  ]);
  const home = superHome();
  const { from, files, timeOf } = await offlineLogFiles(home, args.target, args.stream);
  if (!files.length) {
    throw new SuperError('E_NO_DAEMON', `no daemon is running on ${home}, and no log files of ${args.target === 'all' ? 'any app' : args.target} are in its saved list (dump.json) nor in ${home}/logs; start the daemon with \`super resurrect\` or \`super start <file>\``);
  }
  process.stderr.write(`super: no daemon is running: these are the log files of ${from}\n`);
  if (args.since !== undefined && files.some((f) => !timeOf(f))) {
    throw new SuperError('E_USAGE', `--since needs dated log lines, and the files found here are not known to be dated; use --lines, or start the daemon (\`super resurrect\`)`);
  }
  printTails(await tailFiles(files, { lines: args.lines, since: args.since, timeOf }), render, args);
  if (args.follow) throw new SuperError('E_NO_DAEMON', 'following needs the daemon, which writes the files; start it with `super resurrect` or `super start <file>`');
  return undefined;
}

/** `10m`, `2h`, `30s` ago, or a date (ISO 8601) -> epoch ms. */
function parseSince(v) {
  const ago = parseDuration(v);
  if (ago !== undefined && /[a-z]$/i.test(v.trim())) return Date.now() - ago;
  const t = Date.parse(v);
  if (Number.isFinite(t)) return t;
  throw new SuperError('E_USAGE', `--since ${v}: give a duration like 30s, 10m or 2h, or a date like 2026-01-31T12:00:00Z`);
}

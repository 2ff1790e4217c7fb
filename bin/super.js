#!/usr/bin/env node
// The `super` CLI. Only argument parsing lives here; each command's module is imported
// when that command runs, so `super ls` loads neither the daemon nor the config parser.
const run = (name) => async (...args) => {
  const { runCommand } = await import('../lib/ctl/run-command.js');
  await runCommand(name, args);
};

// The commands scripts and health checks call in loops skip loading commander (~13 ms of
// a ~90 ms run) when their arguments are exactly ones they know; anything else, --help
// included, goes through commander below. `jlist` and `prettylist` are PM2's names for
// `ls --json` (prettylist indented).
const FAST = { ls: ['--json'], list: ['--json'], status: ['--json'], jlist: [], prettylist: [], ping: [] };
const [first, ...rest] = process.argv.slice(2);
if (first === '-v' || first === '--version') {
  await printVersion();
} else if (Object.hasOwn(FAST, first) && rest.every((a) => FAST[first].includes(a))) {
  await run(first === 'ping' ? 'ping' : 'ls')({ json: rest.includes('--json') || first === 'jlist', pretty: first === 'prettylist' });
} else if (first === 'daemon' && daemonFlags(rest)) {
  // The daemon lives for months: commander would stay in its memory (~1-5 MB) for one parse.
  await run('daemon')(daemonFlags(rest));
} else {
  await parseWithCommander();
}

/**
 * `super daemon`'s options as commander would give them, or null for anything else (--help,
 * an unknown or repeated flag, a missing value, `--flag=value`): commander then parses it.
 * @param {string[]} args
 */
function daemonFlags(args) {
  const SWITCHES = { '--foreground': 'foreground', '--resurrect': 'resurrect' };
  const VALUES = { '--log-to': 'logTo', '--listen': 'listen', '--tls-cert': 'tlsCert', '--tls-key': 'tlsKey' };
  const opts = {};
  for (let i = 0; i < args.length; i++) {
    const flag = args[i];
    const key = SWITCHES[flag] ?? VALUES[flag] ?? (flag === '--origin' ? 'origin' : null);
    if (!key || Object.hasOwn(opts, key)) return null;
    if (SWITCHES[flag]) {
      opts[key] = true;
      continue;
    }
    // --origin takes every value up to the next flag (commander's variadic option).
    const values = [];
    while (i + 1 < args.length && !args[i + 1].startsWith('-') && (key === 'origin' || !values.length)) values.push(args[++i]);
    if (!values.length) return null;
    opts[key] = key === 'origin' ? values : values[0];
  }
  return opts;
}

/** `super -v`: the CLI's version alone, as `pm2 -v` prints it (no daemon round trip). */
async function printVersion() {
  const { readFileSync } = await import('node:fs');
  process.stdout.write(`${JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).version}\n`);
}

/** The docs anchor of a command: its row of the command table in docs/cli.md. */
function docsOf(name) {
  const ROW = { jlist: 'ls', prettylist: 'ls' };
  return `docs/cli.md#super-${ROW[name] ?? name}`;
}

/** commander's error line, with what a missing target list looks like (`super restart`). */
function withHint(line) {
  if (!/^missing required argument 'targets'/.test(line)) return line;
  const command = process.argv[2];
  return `super ${command} needs what to ${command}: app names, ids (as super ls shows them), namespaces, ecosystem files, or "all"; e.g. super ${command} api, super ${command} 0 1, super ${command} all\n`;
}

async function parseWithCommander() {
  const { Command, Option } = await import('commander');

  const program = new Command('super')
    .description('superd: a small, fast process supervisor and cluster manager for Node.js')
    .showSuggestionAfterError(true)
    .configureOutput({ outputError: (str, write) => write(`super: E_USAGE: ${withHint(str.replace(/^error: /, ''))}`) })
    .exitOverride((err) => {
      // commander's own errors (unknown command, missing argument) are bad input: exit 2
      process.exit(err.exitCode === 0 ? 0 : 2);
    });

  // Global: talk to a daemon of another host over its TCP control listener. The flags become
  // environment variables, which lib/ctl/remote-target.js reads for every command alike.
  program
    .option('--host <host:port>', 'talk to the daemon at host:port (its control.listen) instead of the local one; also SUPER_HOST')
    .option('--token-file <file>', 'the token for --host (default: $SUPER_HOME/token); also SUPER_TOKEN_FILE')
    .option('--tls', 'connect to --host over TLS (control.tls); also SUPER_TLS=1')
    .option('--tls-ca <file>', 'trust this certificate (PEM) for --host; implies --tls; also SUPER_TLS_CA');
  const hosts = []; // every --host: `super dashboard` shows several daemons
  program.on('option:host', (v) => hosts.push(process.env.SUPER_HOST = v));
  program.on('option:token-file', (v) => (process.env.SUPER_TOKEN_FILE = v));
  program.on('option:tls', () => (process.env.SUPER_TLS = '1'));
  program.on('option:tls-ca', (v) => (process.env.SUPER_TLS_CA = v));

  const collect = (v, list = []) => [...list, v];
  const start = program.command('start').argument('<what>', 'an ecosystem file, a script (app.js), a command ("npm run start"), or stopped apps (name, id, namespace, all)')
    .argument('[more...]', 'more apps to start; after --, the script\'s arguments')
    .description('start the apps of an ecosystem file, a script without one, or stopped apps (starts the daemon if none runs)')
    .option('--env <name>', 'use the env_<name> block of each app (a running app is reloaded with it)')
    .option('--only <apps>', 'comma-separated app names to start')
    .option('--watch', 'reload the apps when their files change (watch mode)')
    .option('-i, --instances <n>', 'a script\'s number of workers in cluster mode: N, max, or -1 (one less than the CPUs)')
    .option('-n, --name <name>', 'a script\'s app name (default: the script\'s name)')
    .option('--env-var <K=V>', 'a variable of a script\'s env (repeat for several)', collect)
    .option('--dry-run', 'with an ecosystem file: print its apps as superd will run them and start nothing (super check)')
    .option('--cluster', 'run a script in cluster mode (a script alone runs as one process in fork mode, as with PM2)')
    .option('--ready-on <when>', 'when a script\'s worker is ready: listen (cluster mode), ready (it calls ready()), spawn')
    .option('--json', 'print the outcome as JSON')
    .action(run('start'));
  // PM2's `pm2 start` flags for a script, grouped apart in --help (lib/ctl/pm2-start-flags.js).
  const { PM2_START_FLAGS, longFlag } = await import('../lib/ctl/pm2-start-flags.js');
  start.optionsGroup('PM2\'s start flags (for a script; each sets the app key of the same name):');
  for (const [flags, help, what] of PM2_START_FLAGS) start.addOption(new Option(flags, help).hideHelp(Boolean(what.ignored || what.refused)));
  const unmapped = (kind) => PM2_START_FLAGS.filter(([, , what]) => what[kind]).map(([flags]) => longFlag(flags)).join(' ');
  start.addHelpText('after', `\nPM2 flags accepted with a warning and ignored: ${unmapped('ignored')}\nPM2 flags refused, with what to do instead: ${unmapped('refused')}`);
  program.command('check').argument('<file>', 'an ecosystem file (superd\'s or PM2\'s: .yml, .json, .js, .cjs, .mjs, .ts)')
    .description('print the apps of an ecosystem file as superd will run them (script, mode, instances, cwd, env with secrets masked) and every warning; starts nothing, needs no daemon')
    .option('--env <name>', 'use the env_<name> block of each app')
    .option('--only <apps>', 'comma-separated app names to show')
    .option('--json', 'print JSON')
    .action(run('check'));
  program.command('watch').argument('<app>', 'app name').argument('<on|off>', 'turn watch mode on or off')
    .description('turn watch mode (reload on file changes) on or off for a running app').action(run('watch'));
  const TARGETS = 'app names, ids (as ls shows them), namespaces, ecosystem files, or "all"';
  program.command('stop').argument('<targets...>', TARGETS).description('stop apps gracefully (they stay listed)')
    .option('--json', 'print the outcome as JSON').action(run('stop'));
  program.command('reload').argument('<targets...>', TARGETS)
    .description('zero-downtime rolling reload: re-read the ecosystem file, replace workers one by one, ready first')
    .option('--keep-config', 'reload with the running config instead of re-reading the file')
    .option('--update-env', 'give the new workers this shell\'s environment (under the app\'s own env, which wins)')
    .option('--env <name>', 'with one ecosystem file: use the env_<name> block of each app (as PM2; its apps not running are started)')
    .option('--only <apps>', 'with one ecosystem file: comma-separated app names to act on')
    .option('--json', 'print the outcome as JSON')
    .action(run('reload'));
  program.command('restart').argument('<targets...>', TARGETS).description('hard restart: stop every worker, then start them again')
    .option('--update-env', 'give the workers this shell\'s environment (under the app\'s own env, which wins), from now on')
    .option('--env <name>', 'with one ecosystem file: use the env_<name> block of each app (as PM2; its apps not running are started)')
    .option('--only <apps>', 'with one ecosystem file: comma-separated app names to act on')
    .action(run('restart'));
  // PM2's deploy-script commands (lib/ctl/commands/start-or.js).
  const startOr = (name, then, alias) => {
    const command = program.command(name).argument('<file>', 'an ecosystem file')
      .description(`PM2's ${name}: start the file's apps that are not running, ${then} the others with the file's config`)
      .option('--env <name>', 'use the env_<name> block of each app')
      .option('--only <apps>', 'comma-separated app names to act on')
      .option('--json', 'print the outcome as JSON')
      .action((file, opts) => run('start-or')(file, { ...opts, then }));
    if (alias) command.alias(alias);
  };
  startOr('startOrReload', 'reload', 'startOrGracefulReload');
  startOr('startOrRestart', 'restart');
  program.command('delete').argument('<targets...>', TARGETS).description('stop apps and forget them').action(run('delete'));
  program.command('scale').argument('<app>', 'app name or id').argument('<count>', 'N, +N or -N')
    .description('change the number of workers').option('--json', 'print the outcome as JSON').action(run('scale'));
  program.command('ls').alias('list').alias('status').description('list apps and workers')
    .option('--json', 'print JSON instead of a table').action(run('ls'));
  program.command('jlist').description('ls --json (PM2\'s name)').action(() => run('ls')({ json: true }));
  program.command('prettylist').description('ls --json, indented (PM2\'s name)').action(() => run('ls')({ pretty: true }));
  program.command('describe').alias('show').argument('<app>', 'app name or id').description('resolved config and per-worker details of an app')
    .option('--json', 'print JSON').action(run('describe'));
  program.command('env').argument('<app>', 'app name or id, or app#slot').argument('[slot]', 'the worker\'s slot (default 0)')
    .description('the environment a worker runs with (secret values masked)')
    .option('--json', 'print JSON').action(run('env'));
  program.command('signal').alias('sendSignal').argument('<signal>', 'a signal name: SIGUSR2, USR2, SIGHUP...')
    .argument('<targets...>', `${TARGETS}; app#slot for one worker`)
    .description('send a signal to the workers of apps (or to one worker)')
    .option('--json', 'print JSON').action(run('signal'));
  program.command('pid').argument('[targets...]', `${TARGETS} (default: all); app#slot for one worker`)
    .description('the pids of the running workers of apps, one per line (PM2\'s pm2 pid), e.g. kill -USR2 $(super pid api)')
    .option('--json', 'print JSON').action(run('pid'));
  program.command('reset').argument('<targets...>', TARGETS).description('set the restart counters of apps back to 0').action(run('reset'));
  program.command('monit').description('live dashboard: CPU, memory, event-loop delay, requests and logs of every worker').action(run('monit'));
  program.command('dashboard').description('live web dashboard of the local daemon, or of every --host given (a process of its own; Ctrl-C stops it)')
    .option('--listen <host:port>', 'where to serve the page (default 127.0.0.1:9615; another address needs TLS and the token)')
    .option('--read-only', 'no actions: the page only shows')
    .option('--tls-cert <file>', 'PEM certificate: serve the page over HTTPS')
    .option('--tls-key <file>', 'PEM private key for --tls-cert')
    .option('--insecure-http', 'allow plain HTTP on a non-loopback --listen (behind a TLS proxy)')
    .option('--origin <origin...>', 'other browser origins allowed (the page as a proxy serves it)')
    .option('--open', 'open the page in the desktop\'s browser ($BROWSER or xdg-open; with a one-time code, never the token)')
    .action((opts) => run('dashboard')({ ...opts, hosts }));
  program.command('deploy').description('rolling reload across hosts through HAProxy: each host drained at the balancer, reloaded, healthy for --min-healthy-time, ready again; --max-parallel at a time, canaries first')
    .option('--server <name...>', 'the HAProxy server name of each --host, in the same order')
    .option('--haproxy <socket>', 'HAProxy\'s runtime API: its stats socket (level admin), a path or host:port')
    .option('--backend <name>', 'the HAProxy backend of those servers')
    .option('--app <target>', 'what to reload on each host (default: all)')
    .option('--release <name>', 'the release rolled out, recorded on each host: a re-run with the same name continues where a stopped one left off')
    .option('--from <name>', 'the release the hosts run now, for hosts with none recorded (what --auto-revert goes back to)')
    .option('--step <command>', 'a shell command run per host after its drain, before its reload, to put the release in place (SUPER_DEPLOY_RELEASE, _SERVER, _HOST, _PREVIOUS, _REVERT)')
    .option('--step-timeout <duration>', 'the most a --step may take (default 5m)')
    .option('--max-parallel <n>', 'hosts rolled at once, never more out of the balancer (default 1)')
    .option('--canary <n>', 'the first n hosts go first; then pause, unless --auto-promote (default 0)')
    .option('--promote', 'go on past the canaries (after a paused run)')
    .option('--auto-promote', 'go on past the canaries once they passed')
    .option('--auto-revert', 'a failed host gets its previous release back (--step run with it, then reload); needs --step')
    .option('--max-error-rate <rate>', 'health gate: once UP, for --min-healthy-time, at most this share of the host\'s requests may fail at the balancer (1% or 0.01), and no failed check')
    .option('--min-healthy-time <duration>', 'how long a host\'s apps must stay online and ready before it is set ready, and the gate\'s window (default 2s)')
    .option('--healthy-deadline <duration>', 'the most a reloaded host may take to be healthy and UP again (default --min-healthy-time + 30s)')
    .option('--drain-timeout <duration>', 'the most to wait for a drained host\'s sessions to end (default 30s)')
    .option('--json', 'one JSON object per step')
    .action((opts) => run('deploy')({ ...opts, hosts }));
  program.command('logs').argument('[app]', 'app name or "all"', 'all')
    .description('print the last lines of the app logs; with -f, follow them live')
    .option('--lines <n>', 'lines of each file to print first (default 20)')
    .option('-f, --follow', 'keep printing new lines until Ctrl-C')
    .option('--out', 'stdout only')
    .option('--err', 'stderr only')
    .option('--json', 'one JSON object per line: {app, slot, stream, time, msg} (time: epoch ms, when known)')
    .option('--raw', 'the lines as written, without app#slot prefixes (for pipes)')
    .option('--since <when>', 'only lines since a duration ago (10m, 2h) or a date (needs dated lines)')
    .option('--nostream', 'PM2\'s flag: print and exit, which is what super logs does without -f')
    .action(run('logs'));
  program.command('profile').argument('<app>', 'app name or id; app#slot for one worker (default: every worker, one file each)')
    .description('CPU profile of live workers: a .cpuprofile (DevTools, speedscope), a flame graph beside it (.html), the top functions')
    .option('--duration <time>', 'how long to profile, up to 5m (default 10s)')
    .option('--out <file>', 'write the profile here instead of $SUPER_HOME/profiles (several workers: FILE-<slot>)')
    .option('--force', 'replace --out (and its .html) if it exists')
    .option('--json', 'print JSON').action(run('profile'));
  program.command('heap').argument('<app>', 'app#slot (the slot may be left out for an app of one worker)')
    .description('heap snapshot of a live worker, written by the worker to $SUPER_HOME/profiles (or --out)')
    .option('--out <file>', 'write the .heapsnapshot here instead')
    .option('--force', 'replace --out if it exists')
    .option('--json', 'print JSON').action(run('heap'));
  program.command('reload-logs').description('reopen every log file (after an external logrotate); same as SIGUSR2 to the daemon').action(run('reload-logs'));
  program.command('flush').argument('[app]', 'app name or "all"', 'all').description('empty the log files of an app and remove its rotated files').action(run('flush'));
  program.command('kill').description('stop every app gracefully, then stop the daemon').action(run('kill'));
  program.command('upgrade').description('replace the daemon with a new one (the superd on disk now) without a failed request; apps keep their sockets')
    .option('--daemon-path <dir>', 'start the superd installed in this directory')
    .option('--config <file>', 'take the daemon-wide settings (scheduling, control, metrics, logs, daemon) from this ecosystem file')
    .option('--json', 'print the outcome as JSON')
    .action(run('upgrade'));
  program.command('daemon').description('run the daemon in the foreground (for systemd and containers)')
    .option('--foreground', 'stay in the foreground (the only mode; for unit files)')
    .option('--resurrect', 'start the apps saved by `super save`')
    .option('--log-to <where>', 'the daemon\'s own log: file ($SUPER_HOME/daemon.log, the default) or stderr (journald under systemd)')
    .option('--listen <host:port>', 'open the TCP control listener (as control.listen; loopback only unless --tls-cert/--tls-key)')
    .option('--tls-cert <file>', 'PEM certificate for --listen (serve TLS)')
    .option('--tls-key <file>', 'PEM private key for --listen')
    .option('--origin <origin...>', 'browser Origin(s) allowed on --listen (as control.origins)')
    .action(run('daemon'));
  program.command('token').description('print the token of the TCP control listener ($SUPER_HOME/token), creating it on first use')
    .option('--rotate', 'replace it with a new one (the old one is refused from the next connection on)')
    .action(run('token'));
  program.command('save').description('save the running apps to $SUPER_HOME/dump.json (for resurrect)')
    .option('--force', 'save even an empty list over a dump that has apps').action(run('save'));
  program.command('run').argument('<file>', 'an ecosystem file (superd\'s or PM2\'s: .yml, .json, .js, .cjs, .mjs, .ts)')
    .description('run the daemon and the file\'s apps in the foreground, app output on stdout/stderr (containers)')
    .option('--env <name>', 'use the env_<name> block of each app')
    .option('--only <apps>', 'comma-separated app names to start')
    .option('--json', 'print app output as JSON lines')
    .action(run('run'));
  program.command('startup').argument('<init>', 'the init system: systemd')
    .description('write a systemd unit that starts the daemon at boot and resurrects the saved apps')
    .option('--user', 'a user unit (~/.config/systemd/user) instead of a system unit')
    .option('--print', 'print the unit instead of writing it')
    .option('--unit-dir <dir>', 'write the unit into this directory (no systemctl calls)')
    .option('--socket <listen...>', 'also write a .socket unit holding these listening sockets (PORT, IP:PORT, [IPv6]:PORT) across daemon restarts; with --print, print that unit')
    .action(run('startup'));
  program.command('unstartup').argument('[init]', 'the init system: systemd', 'systemd')
    .description('disable and remove the unit written by `super startup`')
    .option('--user', 'the user unit').option('--unit-dir <dir>', 'the directory the unit was written to')
    .action(run('unstartup'));
  program.command('resurrect').description('start the apps saved by `super save`').action(run('resurrect'));
  // super import pm2: PM2's dump or ecosystem file -> a superd ecosystem.yml (lib/pm2).
  program.command('import').argument('<from>', 'what to import from: pm2')
    .description('write a superd ecosystem.yml from PM2\'s saved apps (dump.pm2) or a PM2 ecosystem file')
    .option('--pm2-home <dir>', 'PM2\'s home, holding dump.pm2 (default: $PM2_HOME, else ~/.pm2)')
    .option('--file <ecosystem>', 'import this PM2 ecosystem file (.json, .yml, .js) or dump instead')
    .option('--out <file>', 'the ecosystem file to write, - for stdout (default: ecosystem.yml)')
    .option('--force', 'replace --out if it exists')
    .action(run('import'));
  program.command('capacity').argument('<app>', 'app name or id')
    .description('measure the highest request rate a separate copy of the app serves within a latency objective, for 1, 2, ... instances')
    .option('--slo <objective>', 'the latency objective: p99=20ms (several: p99=20ms,p99.9=50ms)')
    .option('--path <path>', 'the request path on the copy (default /)')
    .option('--max-instances <n>', 'the most instances to try (default: the CPUs + 1)')
    .option('--step-duration <duration>', 'how long each rate is held (default 10s)')
    .option('--connections <n>', 'connections of the load generator (default 10)')
    .option('--target <rate>', 'a peak rate to size for, such as 25/s: the instances it needs and the headroom')
    .option('--max-rate <n>', 'never ask for more requests per second than this (default 100000)')
    .option('--start-rate <n>', 'the first rate tried (default 10)')
    .option('--probes <n>', 'the most rates tried per instance count (default 12)')
    .option('--max-time <duration>', 'the most the whole run may take (default 10m)')
    .option('--warmup <duration>', 'unmeasured load on new workers before each instance count is measured (default 2s; 0: none)')
    .option('--port <n>', 'the loopback port the copy listens on (default: a free one superd chooses)')
    .option('--svg <file>', 'write the chart here (default: $SUPER_HOME/capacity-<app>.svg)')
    .option('--json', 'print one JSON object ({rows: [{instances, max_rps, p99_ms, ...}], ...}) on stdout')
    .action(run('capacity'));
  program.command('ping').description('check that the daemon answers (exit 0) or not (exit 3)').action(run('ping'));
  program.command('version').description('print the CLI and daemon versions').action(run('version'));
  program.addOption(new Option('-v, --version', 'print the CLI version').hideHelp());
  // Each command's help ends with where its docs are: a path in the package (no URL), which
  // test/unit/docs-links.test.js checks against the page's anchors.
  for (const command of program.commands) command.addHelpText('after', `\nDocs: ${docsOf(command.name())}`);
  program.addHelpText('after', '\nDocs: README.md, then docs/ (docs/cli.md: every command)');
  program.on('option:version', async () => {
    await printVersion();
    process.exit(0);
  });

  // commander treats a leading "-N" as an option: `super scale api -1` must mean minus one.
  const argv = process.argv.slice();
  if (argv[2] === 'scale' && /^-\d+$/.test(argv[4] ?? '')) argv.splice(4, 0, '--');

  if (argv.length <= 2) program.help();
  await program.parseAsync(argv);
}

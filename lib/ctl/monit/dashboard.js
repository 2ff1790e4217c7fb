// `super monit`: the controller. Connects to the daemon, seeds the model with
// `ls {history: true}`, subscribes to the "metrics" snapshots (once per metrics.interval),
// "worker" state events, "reload" steps and, when the daemon has it, "log" lines; redraws at most
// MAX_FPS times a second, and maps keys to actions.
import { connectDaemon } from '../session.js';
import { superHome } from '../../home.js';
import { MonitModel } from './model.js';
import { renderFrame } from './render.js';
import { parseKeys } from './keys.js';
import { Terminal } from './terminal.js';
import { TOPICS, OPS } from '../../ipc/protocol.js';
import { checkApps, checkEvent } from '../../ipc/daemon-input.js';
import { earlierLines } from '../render-log.js';

const MAX_FPS = 4;

/** Resolves with the exit status once the user quits (or the daemon goes away). */
export async function runDashboard({ home = superHome(), terminal = new Terminal() } = {}) {
  const client = await connectDaemon({ home });
  const model = new MonitModel();
  model.daemon = { pid: client.hello.pid };
  const color = !process.env.NO_COLOR;
  let timer = null;
  let lastDraw = 0;
  let done;
  const finished = new Promise((r) => (done = r));

  const draw = () => {
    timer = null;
    lastDraw = Date.now();
    terminal.draw(renderFrame(model, { ...terminal.size, color }));
  };
  // Throttled: many events in a burst (a restart of 50 workers) make one frame.
  const redraw = () => {
    if (timer) return;
    timer = setTimeout(draw, Math.max(0, 1000 / MAX_FPS - (Date.now() - lastDraw)));
  };

  const quit = (status = 0, note) => {
    clearTimeout(timer);
    terminal.restore();
    client.close();
    if (note) process.stderr.write(`${note}\n`);
    done(status);
  };

  const reload = async (app) => {
    model.message = `reloading ${app}...`;
    redraw();
    try {
      await client.request('reload', { target: app }, { timeout: 0 });
      model.message = `${app} reloaded`;
    } catch (err) {
      model.message = err.code === 'E_UNKNOWN_OP' ? 'this daemon has no reload yet (super restart restarts hard)' : `reload ${app} failed: ${err.code}: ${err.message}`;
    }
    redraw();
  };

  // p: a CPU profile of the selected worker, handled as `super profile` does (flame graph
  // beside the file); its modules load on the first p only.
  const profile = async (app, slot) => {
    const who = `${app}#${slot}`;
    const { DEFAULT_PROFILE_MS } = await import('../../config/profile-limits.js');
    model.message = `profiling ${who} for ${DEFAULT_PROFILE_MS / 1000} s...`;
    redraw();
    try {
      const { localFiles } = await import('../capture-output.js');
      const { reportProfile } = await import('../../profiles/profile-report.js');
      const data = await client.request('profile', { app, slot, duration: DEFAULT_PROFILE_MS }, { timeout: DEFAULT_PROFILE_MS + 90_000 });
      const [f] = await localFiles(client, data.files, { remote: Boolean(process.env.SUPER_HOST) });
      const { html, top } = await reportProfile(f.path, { title: `${who} (pid ${f.pid})`, limit: 1 });
      const hot = top[0] ? `; top: ${top[0].functionName || '(anonymous)'} ${top[0].url}:${top[0].lineNumber}` : '';
      model.message = `profile of ${who}: ${f.path}, flame graph ${html}${hot}`;
    } catch (err) {
      model.message = `profile ${who} failed: ${err.code ?? 'E_INTERNAL'}: ${err.message}`;
    }
    redraw();
  };

  const onKey = (action) => {
    if (model.prompt) {
      const { app } = model.prompt;
      model.prompt = null;
      if (action === 'yes' || action === 'enter') reload(app);
      else model.message = 'reload cancelled';
      return;
    }
    const page = Math.max(1, terminal.size.rows - 12);
    switch (action) {
      case 'quit': return quit(0);
      case 'up': return model.move(-1);
      case 'down': return model.move(1);
      case 'page-up': return model.move(-page);
      case 'page-down': return model.move(page);
      case 'home': return model.move(-Infinity);
      case 'end': return model.move(Infinity);
      case 'reload': {
        const sel = model.selectedRow();
        if (sel) model.prompt = { app: sel.app.name, text: `reload ${sel.app.name} (every worker, one at a time, ready first)? y/n` };
        return undefined;
      }
      case 'profile': {
        const w = model.selectedRow()?.worker;
        if (w?.pid) profile(model.selectedRow().app.name, w.slot);
        else model.message = 'select a running worker to profile';
        return undefined;
      }
      default: return undefined;
    }
  };

  client.onEvent((raw) => {
    if (raw.closed) return quit(3, 'super: E_NO_DAEMON: the daemon closed the connection');
    // checked and bounded: a daemon of another host or version may send anything
    let msg;
    try {
      msg = checkEvent(raw);
    } catch (err) {
      return quit(2, `super: ${err.code}: ${err.message}`);
    }
    if (!msg) return undefined;
    if (msg.event === 'metrics') model.setSnapshot(msg.data);
    else if (msg.event === 'worker') {
      // Worker events go in the pane with the log lines: a restart shows where it happened.
      const e = msg.data;
      const t = new Date().toTimeString().slice(0, 8);
      model.addLog(e.app, `${t} ${e.app}#${e.slot} ${e.prev} -> ${e.state}${e.pid ? ` pid ${e.pid}` : ''}${e.reason ? ` (${e.reason})` : ''}${e.code != null ? ` code ${e.code}` : ''}${e.signal ? ` ${e.signal}` : ''}`);
    } else if (msg.event === 'reload') {
      const e = msg.data;
      const t = new Date().toTimeString().slice(0, 8);
      model.addLog(e.app, `${t} ${e.app}${e.slot === undefined ? '' : `#${e.slot}`} reload ${e.step}${e.pid ? ` pid ${e.pid}` : ''}${e.reason ? ` (${e.reason})` : ''}`);
    } else if (msg.event === 'log') {
      if (msg.data.skipped) model.addLog(msg.data.app, `(${msg.data.skipped} lines skipped)`);
      addLines(model, msg.data.app, msg.data.slot, msg.data.stream, msg.data.text ?? msg.data.line ?? '');
    }
    redraw();
  });

  model.setSnapshot(checkApps(await client.request('ls', { history: true })));
  // Live log lines where the daemon serves them (the last few first); worker events otherwise.
  model.logSource = TOPICS.includes('log') ? 'log' : 'events';
  if (model.logSource === 'log' && OPS.logs) {
    try {
      const { files } = await client.request('logs', { lines: 20 });
      for (const f of files) addTail(model, f);
    } catch {} // the pane fills as lines come
  }
  await client.request('subscribe', { topics: ['metrics', 'worker', 'reload', 'log'].filter((t) => TOPICS.includes(t)) });

  terminal.enter(
    (data) => {
      for (const a of parseKeys(data)) onKey(a);
      redraw();
    },
    () => draw(),
  );
  const onSignal = () => quit(0);
  process.once('SIGTERM', onSignal);
  process.once('SIGHUP', onSignal);
  draw();
  const status = await finished;
  process.off('SIGTERM', onSignal);
  process.off('SIGHUP', onSignal);
  return status;
}

/**
 * A file's last lines into the app's pane; lines a failed earlier start left (the daemon
 * counts them: `earlier`) end at a line saying when the current workers started.
 */
export function addTail(model, f) {
  const { earlier, at } = earlierLines(f);
  addLines(model, f.app, f.slot, f.stream, f.lines.slice(0, earlier).join('\n'));
  if (earlier) model.addLog(f.app, `── ${f.slot == null ? '' : `#${f.slot} `}workers started ${at} (this run) ──`);
  addLines(model, f.app, f.slot, f.stream, f.lines.slice(earlier).join('\n'));
}

/** One "log" event's text (whole lines) into the app's pane, marked with slot and stream. */
function addLines(model, app, slot, stream, text) {
  const mark = stream === 'err' ? '!' : '|';
  // slot is null for a file every slot writes to (merge_logs)
  for (const line of String(text).split('\n')) if (line) model.addLog(app, `${slot == null ? '' : `#${slot} `}${mark} ${line}`);
}

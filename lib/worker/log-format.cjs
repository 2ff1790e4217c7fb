'use strict';
// Worker side of superd's logs (required by agent.cjs, whose dispatch table calls reopen()).
// The daemon opened this worker's log files and gave them to it as fd 1 and 2; SUPER_LOG
// says where they are and how to format:
//   {"out": path, "err": path, "type": "raw"|"json"|"pm2-json", "date": format|"ISO"|null, "app", "slot"}
//
// process.stdout/stderr.write are replaced by a writer that
//  - writes each line with one write() to an O_APPEND file: lines of several workers sharing
//    a file never interleave, and nothing passes through the daemon; a trailing partial
//    line is held until it is complete (0.5 s at most, flushed at exit), formatted or raw
//    (raw-lines.cjs: a write that ends with a newline goes out as it is);
//  - formats (log_date_format / time prefix, log_type: json or pm2-json: line-formats.cjs)
//    here, in the worker, so the daemon does no per-line work;
//  - when the daemon asks (REOPEN_LOGS: rotation, `super reload-logs`; cluster workers) or
//    when it sees its path name another file (checked every second; fork-mode children)
//    opens the paths again and writes there from its next line, then acks LOGS_REOPENED;
//  - on a write error (ENOSPC, EIO) drops the line, tells the daemon once (LOG_ERROR, then
//    LOG_RESUMED), keeps the app running and tries again on the next line.
//
// fd 1 and 2 themselves are left alone (Node cannot dup2): output written to them below
// process.stdout (native addons, child processes that inherit stdio, loggers that write to
// fd 1 directly such as pino's default destination) keeps going to the file open when the
// worker started, which after a rotation is the rotated file: kept, never lost, until the
// worker restarts.
//
// Node makes process.stdout/stderr on their first read: the writer is put in place then
// (onFirstRead), so a worker that never writes (the common server) never pays for either
// stream nor for the writer's modules. Nothing is lost: console, warnings and the app all
// reach the stream through that read.
const fs = require('node:fs');
const { StringDecoder } = require('node:string_decoder');
const { FROM_AGENT } = require('../ipc/agent-protocol.cjs');
const { send: tell } = require('./daemon-channel.cjs');

/** Opens the log paths again (the daemon's REOPEN_LOGS); nothing to do without SUPER_LOG. */
let reopenLogs = () => {};

const raw = process.env.SUPER_LOG;
if (raw) {
  // Not passed on to the app's own children: they get fd 1/2, not our files.
  delete process.env.SUPER_LOG;
  try {
    reopenLogs = install(JSON.parse(raw));
  } catch (err) {
    process.emitWarning(`superd: log formatting disabled: ${err.message}`);
  }
}

function install(cfg) {
  // Without a time prefix or a JSON log_type (the default, raw) nothing is formatted, and
  // line-formats.cjs is not loaded.
  const line = cfg.date || cfg.type === 'json' || cfg.type === 'pm2-json' ? require('./line-formats.cjs').lineFormatter(cfg) : null;
  const formatting = line !== null;
  const targets = { out: { fd: 1, path: cfg.out, flush() {} }, err: { fd: 2, path: cfg.err, flush() {} } };

  function writeAll(target, stream, buf) {
    try {
      let off = 0;
      while (off < buf.length) off += fs.writeSync(target.fd, buf, off, buf.length - off);
      if (target.failed) {
        tell(FROM_AGENT.LOG_RESUMED, { stream, code: target.failed, dropped: target.dropped });
        target.failed = null;
      }
    } catch (err) {
      if (err.code === 'EAGAIN') return writeAll(target, stream, buf); // only if fd 1 was made non-blocking
      target.dropped = (target.failed ? target.dropped : 0) + 1;
      if (!target.failed) {
        target.failed = err.code ?? 'EIO';
        tell(FROM_AGENT.LOG_ERROR, { stream, code: target.failed });
      }
    }
    return undefined;
  }

  function replaceWrite(stream, proc) {
    const { rawLines, HOLD_MS } = require('./raw-lines.cjs');
    const target = targets[stream];
    const decoder = formatting ? new StringDecoder('utf8') : null;
    const rawOut = formatting ? null : rawLines((buf) => writeAll(target, stream, buf));
    let partial = '';
    let partialTimer = null;
    // A line without its newline yet is held (not split in two), and written on its own
    // after a moment or at exit.
    const flushPartial = () => {
      clearTimeout(partialTimer ?? undefined);
      partialTimer = null;
      if (partial && line) { // line is set: partial lines are held only when formatting
        const text = partial;
        partial = '';
        writeAll(target, stream, Buffer.from(`${line(stream, text, Date.now())}\n`));
      }
    };
    target.flush = rawOut ? rawOut.flush : flushPartial;

    proc.write = function write(chunk, encoding, cb) {
      if (typeof encoding === 'function') {
        cb = encoding;
        encoding = undefined;
      }
      if (rawOut) {
        rawOut.write(typeof chunk === 'string' ? Buffer.from(chunk, encoding) : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));
      } else if (line && decoder) { // formatting: no rawOut
        const text = partial + (typeof chunk === 'string' ? chunk : decoder.write(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength)));
        const lines = text.split('\n');
        partial = lines.pop() ?? ''; // split gives at least one
        if (lines.length) {
          const ms = Date.now();
          writeAll(target, stream, Buffer.from(`${lines.map((l) => line(stream, l, ms)).join('\n')}\n`));
        }
        if (partial && !partialTimer) {
          partialTimer = setTimeout(flushPartial, HOLD_MS);
          partialTimer.unref();
        }
      }
      if (typeof cb === 'function') process.nextTick(cb);
      return true;
    };
  }
  onFirstRead('stdout', (proc) => replaceWrite('out', proc));
  onFirstRead('stderr', (proc) => replaceWrite('err', proc));
  process.on('exit', () => {
    targets.out.flush();
    targets.err.flush();
  });

  function reopen() {
    for (const target of Object.values(targets)) {
      try {
        const fd = fs.openSync(target.path, 'a', 0o640);
        if (target.fd > 2) fs.closeSync(target.fd);
        target.fd = fd;
      } catch (err) {
        tell(FROM_AGENT.LOG_ERROR, { stream: target === targets.out ? 'out' : 'err', code: err.code ?? 'EIO' });
      }
    }
    tell(FROM_AGENT.LOGS_REOPENED);
  }

  // @ts-expect-error require() gives the cluster object; Node's typings declare it an ES default export
  if (!require('node:cluster').isWorker && typeof process.send === 'function') {
    // A fork-mode child is not told to reopen (the daemon sends REOPEN_LOGS to cluster
    // workers only). It notices itself, once a second, that its path now names another
    // file (rotation, `super reload-logs`), reopens and acks; lines meanwhile go to the
    // rotated file.
    const moved = (target) => new Promise((resolve) => {
      fs.fstat(target.fd, (e1, open) => fs.stat(target.path, (e2, now) => resolve(!e1 && !e2 && (open.ino !== now.ino || open.dev !== now.dev))));
    });
    let checking = false;
    setInterval(async () => {
      if (checking) return;
      checking = true;
      const [out, err] = await Promise.all([moved(targets.out), moved(targets.err)]);
      checking = false;
      if (out || err) reopen();
    }, 1000).unref();
  }
  return reopen;
}

/** Calls patch(stream) once, when process[name] (stdout, stderr) is first read. */
function onFirstRead(name, patch) {
  const own = Object.getOwnPropertyDescriptor(process, name);
  const getter = own?.get;
  if (!own || !getter || !own.configurable) {
    patch(process[name]);
    return;
  }
  Object.defineProperty(process, name, {
    get() {
      Object.defineProperty(process, name, own); // Node's getter keeps the stream it made
      const stream = getter.call(process);
      patch(stream);
      return stream;
    },
    enumerable: own.enumerable,
    configurable: true,
  });
}

module.exports = { reopen: () => reopenLogs() };

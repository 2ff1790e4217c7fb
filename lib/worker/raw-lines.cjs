'use strict';
// Raw mode (no log format) of the agent's stdout/stderr writer (lib/worker/log-format.cjs).
// Lines of several workers share one O_APPEND file, so a line must reach it in one
// write(): `write('seq=')` then `write('7\n')` would let another worker's line land in
// between. A write that ends with a newline (console.log, the common case) goes out as it
// is, with no copy; a trailing partial line is held until its newline comes, and written
// with what completes it. A held line is written on its own, with a newline added, after
// HOLD_MS or at exit (flush()), so the file stays whole lines; one that grows past HOLD_MAX
// bytes goes out as it is, to bound the memory an app without newlines can pin.
const NL = 0x0a;
const HOLD_MS = 500;
const HOLD_MAX = 64 * 1024;
const NEWLINE = Buffer.from('\n');

/**
 * @param {(buf: Buffer) => void} out  one write() to the file
 * @returns {{write: (buf: Buffer) => void, flush: () => void}}
 */
function rawLines(out) {
  let held = null; // bytes of the line not ended yet (our own copy)
  let timer = null;

  const stopTimer = () => {
    clearTimeout(timer);
    timer = null;
  };

  function flush() {
    stopTimer();
    if (held === null) return;
    const line = held;
    held = null;
    out(Buffer.concat([line, NEWLINE]));
  }

  function write(buf) {
    if (buf.length === 0) return;
    if (held === null && buf[buf.length - 1] === NL) {
      out(buf);
      return;
    }
    const nl = buf.lastIndexOf(NL);
    if (nl === -1) {
      held = held === null ? Buffer.from(buf) : Buffer.concat([held, buf]); // copies: the caller may reuse buf
    } else {
      const whole = buf.subarray(0, nl + 1);
      out(held === null ? whole : Buffer.concat([held, whole]));
      held = nl + 1 < buf.length ? Buffer.from(buf.subarray(nl + 1)) : null;
      stopTimer(); // the held line is out: a new one gets its own HOLD_MS
    }
    if (held !== null && held.length >= HOLD_MAX) {
      out(held);
      held = null;
      stopTimer();
    }
    if (held !== null && timer === null) {
      timer = setTimeout(flush, HOLD_MS);
      timer.unref(); // never keeps a worker alive: exit flushes what is held
    }
  }

  return { write, flush };
}

module.exports = { rawLines, HOLD_MS };

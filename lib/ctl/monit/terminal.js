// The terminal for a full-screen view, with plain ANSI (no dependency: the dashboard
// needs an alternate screen, raw keys, cursor homing and a resize event, which are a few
// escape codes and what node:tty already gives). Whatever happens (q, Ctrl-C, SIGTERM,
// a crash), restore() puts the terminal back as it was: main screen, cursor, cooked mode.
const ENTER = '\x1b[?1049h\x1b[?25l\x1b[H\x1b[2J'; // alternate screen, hide cursor, clear
const LEAVE = '\x1b[0m\x1b[?25h\x1b[?1049l'; // reset style, show cursor, main screen

export class Terminal {
  constructor(input = process.stdin, output = process.stdout) {
    this.input = input;
    this.output = output;
    this.active = false;
    // The listeners enter() adds, for restore() to remove.
    /** @type {(d: Buffer) => void} */
    this.onData = () => {};
    /** @type {() => void} */
    this.onResize = () => {};
    /** @type {() => void} */
    this.onExit = () => {};
  }

  get size() {
    return { cols: this.output.columns || 80, rows: this.output.rows || 24 };
  }

  /** @param {(data: string) => void} onInput  @param {() => void} onResize */
  enter(onInput, onResize) {
    this.active = true;
    this.onData = (d) => onInput(d.toString('utf8'));
    this.output.write(ENTER);
    this.input.setRawMode(true);
    this.input.on('data', this.onData);
    this.input.resume();
    this.output.on('resize', onResize);
    this.onResize = onResize;
    this.onExit = () => this.restore();
    process.on('exit', this.onExit);
  }

  /** Draws a frame: every line rewritten in place (no clear, so no flicker). */
  draw(lines) {
    if (!this.active) return;
    this.output.write(`\x1b[H${lines.map((l) => `${l}\x1b[0m\x1b[K`).join('\r\n')}\x1b[J`);
  }

  restore() {
    if (!this.active) return;
    this.active = false;
    this.input.off('data', this.onData);
    this.output.off('resize', this.onResize);
    process.off('exit', this.onExit);
    try {
      this.input.setRawMode(false);
    } catch {}
    this.input.pause();
    this.output.write(LEAVE);
  }
}

// Terminal input (raw mode) -> dashboard actions. One read can hold several keys (a
// paste, or keys typed while the dashboard was busy), so input is split into keys first.
const SEQUENCES = {
  '\x1b[A': 'up', '\x1bOA': 'up', k: 'up',
  '\x1b[B': 'down', '\x1bOB': 'down', j: 'down',
  '\x1b[5~': 'page-up', '\x1b[6~': 'page-down',
  '\x1b[H': 'home', '\x1b[1~': 'home', g: 'home',
  '\x1b[F': 'end', '\x1b[4~': 'end', G: 'end',
  r: 'reload', p: 'profile', y: 'yes', n: 'no', '\x1b': 'escape', '\r': 'enter',
  q: 'quit', '\x03': 'quit', '\x04': 'quit',
};

/** @param {string} input  @returns {string[]} actions, unknown keys as 'other' */
export function parseKeys(input) {
  const out = [];
  let i = 0;
  while (i < input.length) {
    let key = input[i];
    if (key === '\x1b' && i + 1 < input.length) {
      // CSI / SS3 sequence: ESC [ params final-byte, or ESC O letter
      const m = /^\x1b(\[[0-9;]*[A-Za-z~]|O[A-Za-z])/.exec(input.slice(i));
      if (m) key = m[0];
    }
    out.push(SEQUENCES[key] ?? 'other');
    i += key.length;
  }
  return out;
}

// The flags of every bench script, parsed one way: `--name value` or `--name=value`.
// A number flag (its default is a number) needs a positive value, whole unless named in
// `fractional`; other flags take a string, checked against `choices[name]` when given, and
// split on commas when named in `lists`. Anything else prints the usage line and exits 2.
export function benchArgs(argv, { defaults, fractional = [], choices = {}, lists = [], usage }) {
  const opts = { ...defaults };
  const fail = (msg) => {
    process.stderr.write(`bench: ${msg}\nusage: ${usage}\n`);
    process.exit(2);
  };
  for (let i = 0; i < argv.length; i++) {
    const [flag, inline] = argv[i].split('=', 2);
    const key = flag.slice(2);
    if (!flag.startsWith('--') || !Object.hasOwn(defaults, key)) fail(`unknown argument ${argv[i]}`);
    const value = inline ?? argv[++i];
    if (value === undefined) fail(`${flag} needs a value`);
    if (typeof defaults[key] === 'number') {
      const n = Number(value);
      const whole = !fractional.includes(key);
      if (!(n > 0) || (whole && !Number.isInteger(n))) fail(`${flag} needs a positive ${whole ? 'whole ' : ''}number`);
      opts[key] = n;
    } else {
      const picked = lists.includes(key) ? value.split(',') : [value];
      const allowed = choices[key];
      if (allowed && !picked.every((p) => allowed.includes(p))) fail(`${flag} takes ${allowed.join(lists.includes(key) ? ',' : '|')}`);
      opts[key] = lists.includes(key) ? picked : value;
    }
  }
  return opts;
}

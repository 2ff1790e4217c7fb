// The flooding app of bench/ipc-flood.js: sends agent messages of one kind (FLOOD_KIND) as
// fast as its IPC channel drains (bursts paced by send callbacks) for FLOOD_MS, then
// prints "flood done <messages sent>" and idles.
const os = require('node:os');

const codes = Object.keys(os.constants.errno);
const metrics = { loop: { p50: 0, p99: 1, max: 2, mean: 0 }, elu: 0.1, heap: { used: 1, total: 2 }, rss: 3, resources: { Timeout: 1 }, http: { rps: 0, p99: null, requests: 0 } };
const KINDS = {
  ready: () => 'ready',
  drained: () => ({ cmd: 'super:drained', hookErrors: ['a hook error nobody asked for'] }),
  metrics: () => ({ cmd: 'super:metrics', data: metrics }),
  'log-error': (i) => ({ cmd: 'super:log-error', stream: i % 2 ? 'out' : 'err', code: codes[i % codes.length] }),
  'log-resumed': (i) => ({ cmd: 'super:log-resumed', stream: i % 2 ? 'out' : 'err', code: codes[i % codes.length], dropped: i }),
  'log-error+resumed': (i) => ({ cmd: i % 2 ? 'super:log-resumed' : 'super:log-error', stream: 'out', code: codes[(i >> 1) % codes.length], dropped: i }),
  'logs-reopened': () => ({ cmd: 'super:logs-reopened' }),
  unknown: (i) => ({ cmd: `super:nothing${i % 100}`, i }),
};
const make = KINDS[process.env.FLOOD_KIND];
if (!make) throw new Error(`FLOOD_KIND must be one of ${Object.keys(KINDS).join(', ')}`);
const until = Date.now() + Number(process.env.FLOOD_MS ?? 10000);
const BURST = 500;
let sent = 0;

function burst() {
  if (Date.now() >= until) return console.log(`flood done ${sent}`);
  for (let i = 1; i < BURST; i++) process.send(make(sent++));
  return process.send(make(sent++), burst);
}

burst();
setInterval(() => {}, 1000);

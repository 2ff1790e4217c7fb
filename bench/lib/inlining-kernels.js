// Run by bench/inlining.js, once with Node's default flags and once with
// --no-turbo-inlining: `node bench/lib/inlining-kernels.js <kernel> <runs>` warms the kernel
// up, then prints the CPU time (µs, user + system) of one run, averaged over <runs>.
//   work   bench/cpu-app.js's request work: one function, a tight integer loop
//   fib    examples/fib's GET /: fib(10000) with BigInt (most time in BigInt builtins)
//   small  small methods, a getter and closures (filter/map/reduce over 2,000 objects):
//          the code inlining helps most
class Point {
  constructor(x, y) {
    this.x = x;
    this.y = y;
  }

  get length() {
    return Math.hypot(this.x, this.y);
  }

  plus(o) {
    return new Point(this.x + o.x, this.y + o.y);
  }
}
const points = Array.from({ length: 2000 }, (_, i) => new Point(i, i + 1));

const KERNELS = {
  work() {
    let h = 2166136261;
    for (let i = 0; i < 200000; i++) h = Math.imul(h ^ (i & 0xff), 16777619);
    return h >>> 0;
  },
  fib() {
    let a = 0n;
    let b = 1n;
    for (let i = 0; i < 10000; i++) [a, b] = [b, a + b];
    return a;
  },
  small() {
    let acc = new Point(0, 0);
    for (let r = 0; r < 20; r++) acc = points.filter((p) => p.length > 10).map((p) => p.plus(acc)).reduce((a, p) => a.plus(p), acc);
    return acc.x;
  },
};

const kernel = KERNELS[process.argv[2]];
const runs = Number(process.argv[3]);
let sink = 0;
for (let i = 0; i < runs / 4; i++) sink += Number(kernel()) || 0;
const start = process.cpuUsage();
for (let i = 0; i < runs; i++) sink += Number(kernel()) || 0;
const used = process.cpuUsage(start);
globalThis.sink = sink; // the results are used: nothing is optimized away
process.stdout.write(`${((used.user + used.system) / runs).toFixed(1)}\n`);

import fs from 'node:fs';
const [file, ...pre] = process.argv.slice(2);
for (const p of pre) await import(p);
const base = new URL(file, 'file:///work/wt/20c/');
const list = fs.readFileSync(new URL(base), 'utf8').split('\n').filter((l) => /^import .* from '/.test(l)).map((l) => /from '(.*)'/.exec(l)[1]);
const out = [];
for (const m of list) { const spec = m.startsWith('.') ? new URL(m, base).href : m; const t = performance.now(); await import(spec); out.push([m, performance.now() - t]); }
console.log(out.filter(([, t]) => t > 1).map(([m, t]) => `${m} ${t.toFixed(1)}`).join('\n'));

// Issue 16: TypeScript declarations for `superd` (the programmatic API) and `superd/worker`,
// resolved through package.json "exports" the way a consumer's tsc does (module nodenext),
// and in step with what the modules really export.
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { spawnSync } from 'node:child_process';
import { ROOT } from '../helpers/harness.js';

const TSC = path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');

/** A consumer project with `superd` installed as a link to this checkout; tsc's result. */
function typecheck(t, files) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sd-types-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  fs.mkdirSync(path.join(dir, 'node_modules'));
  fs.symlinkSync(ROOT, path.join(dir, 'node_modules', 'superd'));
  fs.writeFileSync(path.join(dir, 'package.json'), '{"type": "module"}\n');
  const tsconfig = { compilerOptions: { module: 'nodenext', moduleResolution: 'nodenext', target: 'es2022', lib: ['es2022', 'dom'], strict: true, noEmit: true, types: [], skipDefaultLibCheck: true }, files: Object.keys(files) };
  fs.writeFileSync(path.join(dir, 'tsconfig.json'), JSON.stringify(tsconfig));
  for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), text);
  return spawnSync(process.execPath, [TSC, '-p', dir], { encoding: 'utf8' });
}

const CONSUMER = `
import { connect, ensureDaemon, superHome, SuperError, CODES, EXIT, type Client, type AppRow } from 'superd';
import { ready, onShutdown, slot, appName, isSuperd } from 'superd/worker';

export async function main(): Promise<number> {
  const client: Client = await ensureDaemon(superHome());
  const { apps } = await client.request('ls');
  const names: string[] = apps.map((a: AppRow) => a.name);
  const r = await client.request('reload', { target: ['api'] }, { timeout: 0, onProgress: (p) => console.log(p.step) });
  const failed: string[] = r.apps.filter((a) => !a.ok).map((a) => a.failed?.reason ?? '');
  await client.request('start', { file: '/srv/eco.yml' }, { timeout: 0 });
  client.close();
  const again = await connect(superHome({ SUPER_HOME: '/srv/super' }), { timeout: 1000 });
  again.close();
  const s: number | null = slot();
  const n: string | null = appName();
  if (isSuperd()) ready();
  onShutdown(async () => {});
  const err = new SuperError('E_USAGE', 'bad');
  const status: number = err.exitStatus + CODES.E_CONFIG[0] + EXIT.BAD_INPUT;
  return names.length + failed.length + (s ?? 0) + (n?.length ?? 0) + status;
}
`;

const WRONG = "import { ready } from 'superd/worker';\nimport { connect } from 'superd';\nready(1);\nconnect(42);\n";

test('a TypeScript consumer type-checks against the declarations (tsc, module nodenext), misuse does not', (t) => {
  const r = typecheck(t, { 'consumer.ts': CONSUMER, 'wrong.ts': WRONG });
  const errors = r.stdout.trim().split('\n').map((l) => l.replace(/^.*?(\w+\.ts\()/, '$1'));
  // Only the misuse fails (so the check can fail): ready() takes no argument, connect() a path.
  assert.deepEqual(errors.map((e) => e.replace(/: error (TS\d+):.*/, ' $1')), ['wrong.ts(3,7) TS2554', 'wrong.ts(4,9) TS2345'], r.stdout + r.stderr);
});

/** The value-level names a declaration file exports. */
const declared = (file) => [...fs.readFileSync(path.join(ROOT, 'types', file), 'utf8').matchAll(/^export declare (?:function|const|class) (\w+)/gm)].map((m) => m[1]).sort();

test('the declarations name exactly what the modules export', async () => {
  assert.deepEqual(declared('index.d.ts'), Object.keys(await import('superd')).sort());
  const require = createRequire(import.meta.url);
  assert.deepEqual(declared('worker.d.cts'), Object.keys(require('superd/worker')).sort());
});

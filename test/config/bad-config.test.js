// Every file of test/fixtures/bad-config/*.yml must be refused with E_CONFIG
// (exit status 2), and the error output (message, then one problem per line, each
// starting with file:line:col)
// must contain each of the file's `# expect: <substring>` lines. The first line
// of each file is an expectation, so a file cannot silently expect nothing.
// An optional `# options: {json}` line gives loadEcosystem options; cpus is 2
// unless it says otherwise. In an expectation, `{allowed}` stands for the CPUs the
// daemon may use as a CPU list (here 0..cpus-1: "0-1") and `{cpus}` for how many there
// are, so that a file refers to the machine's CPUs without naming them: the CLI and
// daemon tests put the real ones there.

import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { loadEcosystem } from '../../lib/config/index.js';
import { formatCpuList } from '../../lib/config/cpu-set.js';

const dir = fileURLToPath(new URL('../fixtures/bad-config/', import.meta.url));
const files = readdirSync(dir).filter((f) => f.endsWith('.yml')).sort();

test('the corpus has at least 40 bad files', () => {
  assert.ok(files.length >= 40, `only ${files.length} files`);
});

for (const name of files) {
  test(`bad-config/${name} is refused with the expected problems`, async () => {
    const text = readFileSync(path.join(dir, name), 'utf8');
    const lines = text.split('\n');
    assert.match(lines[0], /^# expect: ./, 'the first line must be `# expect: <substring>`');
    const optionsLine = lines.find((l) => l.startsWith('# options: '));
    const options = { cpus: 2, ...(optionsLine ? JSON.parse(optionsLine.slice('# options: '.length)) : {}) };
    const allowed = formatCpuList(options.allowedCpus ?? Array.from({ length: options.cpus }, (_, i) => i));
    const expects = lines.filter((l) => l.startsWith('# expect: '))
      .map((l) => l.slice('# expect: '.length).replaceAll('{allowed}', allowed).replaceAll('{cpus}', String(options.cpus)));

    const err = await loadEcosystem(path.join(dir, name), options).then(
      () => assert.fail('the file was accepted'),
      (e) => e,
    );
    assert.equal(err.code, 'E_CONFIG', err.stack);
    assert.equal(err.exitStatus, 2);
    const problems = err.details.problems;
    assert.match(err.message, new RegExp(`^${problems.length} ${problems.length === 1 ? "problem" : "problems"} in `));
    for (const p of problems) assert.doesNotMatch(p, /\n/, 'a problem is one line');
    // each names the file and the line (`file:line:col: `); only a wrong --env or --only,
    // which no line of the file causes, names the file alone
    const file = path.join(dir, name);
    for (const p of problems) assert.ok(p.startsWith(`${file}:`) && (/^:\d+:\d+: /.test(p.slice(file.length)) || /^: --(env|only) /.test(p.slice(file.length))), `no file:line in: ${p}`);
    const output = [err.message, ...problems].join('\n');
    for (const expected of expects) {
      assert.ok(output.includes(expected), `missing ${JSON.stringify(expected)} in:\n${output}`);
    }
  });
}

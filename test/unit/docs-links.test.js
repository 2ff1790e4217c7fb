// The docs stay linked: every relative link and image in README.md and docs/*.md points at a
// file that exists, and every #anchor at a heading (or an <a id>) of that page, with GitHub's
// anchor rules. Each command's --help ends with a docs path whose anchor exists too.
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { ROOT } from '../helpers/harness.js';

const PAGES = ['README.md', ...fs.readdirSync(path.join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];

/** The page's lines outside fenced code blocks, with inline code spans blanked. */
function prose(text) {
  let fenced = false;
  return text.split('\n').map((line) => {
    if (/^\s*```/.test(line)) {
      fenced = !fenced;
      return '';
    }
    return fenced ? '' : line.replace(/(`+)[^`]*?\1/g, 'code');
  });
}

/** GitHub's heading anchor: lower case, punctuation but - and _ dropped, spaces to -, repeats numbered. */
function anchorsOf(file) {
  const anchors = new Set();
  const seen = new Map();
  let fenced = false;
  for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
    if (/^\s*```/.test(line)) fenced = !fenced;
    if (fenced) continue;
    for (const m of line.matchAll(/<a (?:id|name)="([^"]+)"/g)) anchors.add(m[1]);
    const h = /^#{1,6} (.*)$/.exec(line);
    if (!h) continue;
    const base = h[1].trim().toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/ /g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    anchors.add(n ? `${base}-${n}` : base);
  }
  return anchors;
}

/** Every [text](target) and ![alt](target) of a page that is not a URL: {line, target}. */
function linksOf(page) {
  const links = [];
  prose(fs.readFileSync(path.join(ROOT, page), 'utf8')).forEach((line, i) => {
    for (const m of line.matchAll(/!?\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
      if (!/^[a-z]+:/i.test(m[1])) links.push({ line: i + 1, target: m[1] });
    }
  });
  return links;
}

/** What is wrong with `target` seen from `page` (null when it resolves). */
function brokenTarget(page, target) {
  const [file, anchor] = target.split('#');
  const resolved = file ? path.resolve(ROOT, path.dirname(page), file) : path.join(ROOT, page);
  if (!fs.existsSync(resolved)) return `${file}: no such file`;
  if (anchor === undefined) return null;
  if (!resolved.endsWith('.md')) return `#${anchor} in a file that is not markdown`;
  return anchorsOf(resolved).has(anchor) ? null : `no anchor #${anchor} in ${path.relative(ROOT, resolved)}`;
}

test('every link in README.md and docs/*.md reaches an existing file and anchor', () => {
  const broken = [];
  let count = 0;
  for (const page of PAGES) {
    for (const { line, target } of linksOf(page)) {
      count++;
      const why = brokenTarget(page, target);
      if (why) broken.push(`${page}:${line}: (${target}) ${why}`);
    }
  }
  assert.deepEqual(broken, []);
  assert.ok(count > 100, `only ${count} links found: the parser lost them`);
});

test('the checker finds a broken link and a missing anchor', () => {
  assert.equal(brokenTarget('README.md', 'docs/nope.md'), 'docs/nope.md: no such file');
  assert.equal(brokenTarget('docs/cli.md', 'reload.md#no-such-heading'), 'no anchor #no-such-heading in docs/reload.md');
  assert.equal(brokenTarget('docs/cli.md', 'reload.md#zero-downtime-reload'), null);
  assert.equal(brokenTarget('docs/cli.md', '#super-start'), null);
});

test("each command's --help ends with its docs page and anchor", () => {
  const SUPER = path.join(ROOT, 'bin', 'super.js');
  const help = execFileSync(process.execPath, [SUPER, '--help'], { encoding: 'utf8' });
  assert.match(help.trimEnd().split('\n').pop(), /^Docs: README\.md/);
  const commands = help.slice(help.indexOf('Commands:')).split('\n\n')[0].split('\n').slice(1).map((l) => l.trim().split(/[\s|]/)[0]).filter((c) => c && c !== 'help');
  assert.ok(commands.length > 30, commands.join(' '));
  // Every command gets its line from one loop in bin/super.js; three are run to see it printed,
  // and every command's anchor is checked in the page.
  for (const command of ['start', 'reload', 'jlist']) {
    const out = execFileSync(process.execPath, [SUPER, command, '--help'], { encoding: 'utf8' });
    assert.match(out.trimEnd().split('\n').pop(), /^Docs: docs\/cli\.md#super-(start|reload|ls)$/, command);
  }
  const anchors = anchorsOf(path.join(ROOT, 'docs', 'cli.md'));
  const missing = commands.map((c) => (['jlist', 'prettylist'].includes(c) ? 'ls' : c)).filter((c) => !anchors.has(`super-${c}`));
  assert.deepEqual(missing, []);
});

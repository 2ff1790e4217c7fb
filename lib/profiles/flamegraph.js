// A CPU profile as one self-contained HTML flame graph: inline SVG, a few lines of
// inline script for hover and click-to-zoom, no network, no external fonts.
// Classic orientation: the root at the bottom, callees stacked above their callers,
// width = time (total time of the frame), siblings ordered widest first.
// Pure: no I/O. Every name comes from the profiled app and is escaped.

import { createHash } from 'node:crypto';
import {
  indexProfile, selfTimes, frameKind, functionName, position, frameLocation,
} from './cpu-profile.js';

/** Width of the graph in SVG units (= CSS px at 100 % zoom). */
const WIDTH = 1200;
const FRAME_HEIGHT = 17;
const MARGIN_TOP = 8;
/** Frames narrower than this many units are merged with their narrow siblings. */
const MIN_FRAME_WIDTH = 1;
/** Most frames drawn, so that a huge profile still makes a small file. */
const MAX_FRAMES = 4000;

/** Legend order, label and colour (hue, saturation, lightness range) per frame kind. */
const KINDS = {
  app: { label: 'app code', hue: [0, 35], saturation: 85, lightness: [55, 68] },
  dependency: { label: 'node_modules', hue: [42, 58], saturation: 80, lightness: [55, 66] },
  node: { label: 'node: internals', hue: [200, 220], saturation: 60, lightness: [66, 76] },
  native: { label: 'V8 / native', hue: [165, 180], saturation: 40, lightness: [62, 72] },
  gc: { label: '(garbage collector)', hue: [280, 290], saturation: 50, lightness: [68, 72] },
  program: { label: '(program)', hue: [0, 0], saturation: 0, lightness: [68, 68] },
  idle: { label: '(idle)', hue: [110, 110], saturation: 20, lightness: [84, 84] },
  merged: { label: 'narrow frames, merged', hue: [0, 0], saturation: 0, lightness: [88, 88] },
  root: { label: 'all', hue: [0, 0], saturation: 0, lightness: [80, 80] },
};

/**
 * @param {object} profile a parsed .cpuprofile
 * @param {{ title?: string, cwd?: string }} [options] cwd: paths under it are shown relative
 * @returns {string} an HTML document
 */
export function flameGraphHtml(profile, { title = 'CPU profile', cwd = process.cwd() } = {}) {
  const { byId, root } = indexProfile(profile);
  const tree = callTree(root, byId, selfTimes(profile, byId).selfUs);
  const { frames, depth, truncated } = layout(tree);
  const height = MARGIN_TOP + (depth + 1) * FRAME_HEIGHT;
  const rendered = frames.map((frame) => frameSvg(frame, depth, tree.totalUs, cwd)).join('\n');
  const summary = `${formatMs(tree.totalUs)} sampled, ${profile.samples?.length ?? 0} samples, ` +
    `${frames.length} frames drawn${truncated ? ` (the limit: deeper frames are not drawn)` : ''}`;
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src '${ZOOM_SCRIPT_HASH}'">
<title>${escapeHtml(title)}</title>
<style>
body { margin: 12px; font: 13px system-ui, sans-serif; color: #222; background: #fff; }
h1 { font-size: 16px; margin: 0 0 4px; }
.meta, .help { color: #555; margin: 0 0 6px; }
.legend span { display: inline-block; margin-right: 14px; }
.legend i { display: inline-block; width: 11px; height: 11px; margin-right: 4px; vertical-align: -1px; border: 1px solid #0002; }
#details { min-height: 1.3em; margin: 6px 0; font-family: ui-monospace, Menlo, Consolas, monospace; white-space: pre; overflow: hidden; }
svg { display: block; width: 100%; height: auto; }
g.f { cursor: pointer; }
g.f text { font: 11px ui-monospace, Menlo, Consolas, monospace; fill: #000; pointer-events: none; }
g.f:hover rect { stroke: #000; stroke-width: 0.8; }
g.f.ancestor rect { opacity: 0.55; }
g.f.hidden { display: none; }
</style>
</head>
<body>
<h1>${escapeHtml(title)}</h1>
<p class="meta">${escapeHtml(summary)}</p>
<p class="legend">${legendHtml()}</p>
<p class="help">Root at the bottom, callers below callees; width = total time. Hover a frame for its times, click to zoom, Escape or a click on the background to reset.</p>
<div id="details"></div>
<svg id="flame" viewBox="0 0 ${WIDTH} ${height}" role="img">
<rect id="background" x="0" y="0" width="${WIDTH}" height="${height}" fill="#fff"/>
${rendered}
</svg>
<script>${ZOOM_SCRIPT}</script>
</body>
</html>
`;
}

/**
 * The profile's nodes as a tree in which children of one parent with the same
 * function (name, url, line, column) are merged; totals computed bottom-up.
 * Iterative (deep recursion in a profile must not overflow the stack) and safe
 * against ids referenced twice.
 */
function callTree(rootNode, byId, selfUs) {
  const makeFrame = (node) => ({ callFrame: node.callFrame, selfUs: 0, totalUs: 0, children: new Map() });
  const tree = makeFrame(rootNode);
  const seen = new Set([rootNode.id]);
  const order = [];
  const stack = [[rootNode, tree]];
  for (let top = stack.pop(); top; top = stack.pop()) {
    const [node, frame] = top;
    frame.selfUs += selfUs.get(node.id) ?? 0;
    order.push(frame);
    for (const childId of Array.isArray(node.children) ? node.children : []) {
      const child = byId.get(childId);
      if (!child || seen.has(childId)) continue;
      seen.add(childId);
      const { functionName: name, url, lineNumber, columnNumber } = child.callFrame;
      const key = `${name}\n${url}\n${lineNumber}\n${columnNumber}`;
      let childFrame = frame.children.get(key);
      if (!childFrame) frame.children.set(key, (childFrame = makeFrame(child)));
      stack.push([child, childFrame]);
    }
  }
  for (let i = order.length - 1; i >= 0; i--) {
    const frame = order[i];
    frame.totalUs += frame.selfUs;
    for (const child of frame.children.values()) frame.totalUs += child.totalUs;
  }
  return tree;
}

/**
 * Positions frames breadth-first, so that the frame limit cuts the deepest levels.
 * Siblings narrower than MIN_FRAME_WIDTH are drawn as one merged frame.
 * @returns {{ frames: object[], depth: number, truncated: boolean }}
 */
function layout(tree) {
  const scale = tree.totalUs > 0 ? WIDTH / tree.totalUs : 0;
  const frames = [];
  let depth = 0;
  let truncated = false;
  let level = [{ frame: tree, x: 0, width: WIDTH, kind: 'root' }];
  for (let d = 0; level.length > 0; d++) {
    const next = [];
    for (const placed of level) {
      if (frames.length >= MAX_FRAMES) {
        truncated = true;
        break;
      }
      frames.push({ ...placed, depth: d });
      depth = d;
      if (placed.kind === 'merged') continue;
      const children = [...placed.frame.children.values()].sort((a, b) => b.totalUs - a.totalUs);
      let x = placed.x;
      const narrow = { count: 0, totalUs: 0 };
      for (const child of children) {
        const width = child.totalUs * scale;
        if (width < MIN_FRAME_WIDTH) {
          narrow.count++;
          narrow.totalUs += child.totalUs;
          continue;
        }
        next.push({ frame: child, x, width, kind: frameKind(child.callFrame) });
        x += width;
      }
      const narrowWidth = narrow.totalUs * scale;
      if (narrowWidth >= MIN_FRAME_WIDTH) next.push({ frame: narrow, x, width: narrowWidth, kind: 'merged' });
    }
    level = next;
  }
  return { frames, depth, truncated };
}

function frameSvg({ frame, x, width, depth, kind }, maxDepth, profileUs, cwd) {
  const label = frameLabel(frame, kind, cwd);
  const percent = (us) => (profileUs > 0 ? ((us / profileUs) * 100).toFixed(1) : '0.0');
  const self = kind === 'merged' ? '' : `, self ${formatMs(frame.selfUs)} (${percent(frame.selfUs)}%)`;
  const tip = `${label}\ntotal ${formatMs(frame.totalUs)} (${percent(frame.totalUs)}%)${self}, ${KINDS[kind].label}`;
  const y = MARGIN_TOP + (maxDepth - depth) * FRAME_HEIGHT;
  const attr = (n) => Number(n.toFixed(2));
  return `<g class="f" data-x="${attr(x)}" data-w="${attr(width)}" data-d="${depth}" data-l="${escapeHtml(label)}">` +
    `<title>${escapeHtml(tip)}</title>` +
    `<rect x="${attr(x)}" y="${y}" width="${attr(width)}" height="${FRAME_HEIGHT - 1}" rx="2" fill="${colour(kind, label)}"/>` +
    `<text x="${attr(x + 3)}" y="${y + FRAME_HEIGHT - 5}"></text></g>`;
}

function frameLabel(frame, kind, cwd) {
  if (kind === 'merged') return `(${frame.count} frames narrower than ${MIN_FRAME_WIDTH} px)`;
  if (kind === 'root') return 'all';
  const location = frameLocation(String(frame.callFrame.url ?? ''), position(frame.callFrame).lineNumber, cwd);
  const name = functionName(frame.callFrame);
  return location ? `${name} ${location}` : name;
}

/** A stable colour within the kind's range, varied by the label so neighbours differ. */
function colour(kind, label) {
  const { hue, saturation, lightness } = KINDS[kind];
  let hash = 2166136261;
  for (let i = 0; i < label.length; i++) hash = Math.imul(hash ^ label.charCodeAt(i), 16777619);
  const spread = ((hash >>> 0) % 1000) / 1000;
  const h = hue[0] + (hue[1] - hue[0]) * spread;
  const l = lightness[0] + (lightness[1] - lightness[0]) * (1 - spread);
  return `hsl(${h.toFixed(0)} ${saturation}% ${l.toFixed(0)}%)`;
}

function legendHtml() {
  return Object.entries(KINDS)
    .filter(([kind]) => kind !== 'root')
    .map(([kind, { label }]) => `<span><i style="background:${colour(kind, '')}"></i>${escapeHtml(label)}</span>`)
    .join('');
}

function formatMs(us) {
  const ms = us / 1000;
  return ms >= 100 ? `${ms.toFixed(0)} ms` : `${ms.toFixed(1)} ms`;
}

function escapeHtml(text) {
  return String(text).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/**
 * Hover shows a frame's tooltip text under the title; a click zooms to the frame
 * (its subtree fills the width, its callers stay full width, faded). Labels are
 * fitted to each frame's width here, on load and on every zoom.
 */
const ZOOM_SCRIPT = `
(() => {
  const WIDTH = ${WIDTH}, CHAR = 6.7, PAD = 3, EPS = 0.05; // positions are rounded to 0.01, frames are >= 1 wide
  const svg = document.getElementById('flame');
  const details = document.getElementById('details');
  const frames = [...svg.querySelectorAll('g.f')].map((g) => ({
    g, rect: g.querySelector('rect'), text: g.querySelector('text'),
    x: +g.dataset.x, w: +g.dataset.w, d: +g.dataset.d, label: g.dataset.l,
  }));
  const place = (f, x, w) => {
    f.rect.setAttribute('x', x);
    f.rect.setAttribute('width', w);
    f.text.setAttribute('x', x + PAD);
    const fits = Math.floor((w - 2 * PAD) / CHAR);
    f.text.textContent = fits < 3 ? '' : f.label.length <= fits ? f.label : f.label.slice(0, fits - 1) + '\\u2026';
  };
  const zoom = (target) => {
    for (const f of frames) {
      const ancestor = f.d < target.d && f.x <= target.x + EPS && f.x + f.w >= target.x + target.w - EPS;
      const inside = f.d >= target.d && f.x >= target.x - EPS && f.x + f.w <= target.x + target.w + EPS;
      f.g.classList.toggle('hidden', !ancestor && !inside);
      f.g.classList.toggle('ancestor', ancestor);
      if (ancestor) place(f, 0, WIDTH);
      else if (inside) place(f, ((f.x - target.x) / target.w) * WIDTH, (f.w / target.w) * WIDTH);
    }
  };
  const reset = () => zoom(frames[0]);
  const byElement = new Map(frames.map((f) => [f.g, f]));
  svg.addEventListener('click', (event) => {
    const f = byElement.get(event.target.closest('g.f'));
    if (f) zoom(f); else reset();
  });
  svg.addEventListener('mouseover', (event) => {
    const g = event.target.closest('g.f');
    details.textContent = g ? g.querySelector('title').textContent.replace('\\n', '  |  ') : '';
  });
  document.addEventListener('keydown', (event) => { if (event.key === 'Escape') reset(); });
  reset();
})();
`;

/** Only this script may run (the page's Content-Security-Policy), whatever a name holds. */
const ZOOM_SCRIPT_HASH = `sha256-${createHash('sha256').update(ZOOM_SCRIPT).digest('base64')}`;

// Reading a V8 CPU profile (.cpuprofile, the format of `node --cpu-prof` and of
// inspector's Profiler.stop): the call tree, the time each sample stands for, and
// what kind of code each frame is. Shared by the flame graph and the text summary.
// Pure: no I/O. The profile is a worker's output, so it is checked, not trusted.

import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** Names V8 gives to pseudo-frames that are not JavaScript functions. */
const PSEUDO_KINDS = new Map([
  ['(root)', 'root'],
  ['(program)', 'program'],
  ['(idle)', 'idle'],
  ['(garbage collector)', 'gc'],
]);

/**
 * Checks the shape this module relies on and indexes the nodes by id.
 * @returns {{ byId: Map<number, object>, root: object }}
 */
export function indexProfile(profile) {
  if (!profile || !Array.isArray(profile.nodes) || profile.nodes.length === 0) {
    throw new TypeError('not a V8 CPU profile: no nodes');
  }
  const byId = new Map();
  for (const node of profile.nodes) {
    if (!node || !Number.isFinite(node.id) || !node.callFrame || typeof node.callFrame !== 'object') {
      throw new TypeError('not a V8 CPU profile: a node without id or callFrame');
    }
    byId.set(node.id, node);
  }
  // The root is the node no other node lists as a child (V8 writes it first).
  const children = new Set(profile.nodes.flatMap((node) => (Array.isArray(node.children) ? node.children : [])));
  return { byId, root: profile.nodes.find((node) => !children.has(node.id)) ?? profile.nodes[0] };
}

/**
 * Microseconds of self time per node id, from samples + timeDeltas: each sample
 * lasts until the next one, the last until endTime (sampling intervals vary).
 * Profiles without samples fall back to hitCount spread evenly over the run.
 * @returns {{ selfUs: Map<number, number>, totalUs: number }}
 */
export function selfTimes(profile, byId) {
  const selfUs = new Map();
  const add = (id, us) => {
    if (us > 0 && byId.has(id)) selfUs.set(id, (selfUs.get(id) ?? 0) + us);
  };
  const { samples, timeDeltas } = profile;
  if (Array.isArray(samples) && Array.isArray(timeDeltas) && samples.length > 0 &&
      samples.length === timeDeltas.length) {
    let at = Number(profile.startTime) || 0;
    const stamps = timeDeltas.map((delta) => (at += Number(delta) || 0));
    const end = Number.isFinite(profile.endTime) ? profile.endTime : stamps.at(-1);
    for (let i = 0; i < samples.length; i++) {
      add(samples[i], (i + 1 < stamps.length ? stamps[i + 1] : end) - stamps[i]);
    }
  } else {
    const hits = profile.nodes.reduce((sum, node) => sum + (Number(node.hitCount) || 0), 0);
    const span = (Number(profile.endTime) || 0) - (Number(profile.startTime) || 0);
    const perHit = hits > 0 && span > 0 ? span / hits : 1000;
    for (const node of profile.nodes) add(node.id, (Number(node.hitCount) || 0) * perHit);
  }
  let totalUs = 0;
  for (const us of selfUs.values()) totalUs += us;
  return { selfUs, totalUs };
}

/**
 * What a frame is: 'app' (the app's own files), 'dependency' (node_modules),
 * 'node' (node: internals), 'native' (V8 builtins and other frames without a
 * script), or one of the pseudo-frames 'gc', 'idle', 'program', 'root'.
 */
export function frameKind(callFrame) {
  const pseudo = PSEUDO_KINDS.get(callFrame.functionName);
  if (pseudo && !callFrame.url) return pseudo;
  const url = String(callFrame.url ?? '');
  if (url === '') return 'native';
  if (url.startsWith('node:')) return 'node';
  if (/[\\/]node_modules[\\/]/.test(url)) return 'dependency';
  return 'app';
}

/** The function's name as a person reads it. */
export function functionName(callFrame) {
  return String(callFrame.functionName ?? '') || '(anonymous)';
}

/** 1-based line and column (V8 counts from 0; -1 = unknown becomes 0). */
export function position(callFrame) {
  const line = Number.isInteger(callFrame.lineNumber) ? callFrame.lineNumber + 1 : 0;
  const column = Number.isInteger(callFrame.columnNumber) ? callFrame.columnNumber + 1 : 0;
  return { lineNumber: Math.max(line, 0), columnNumber: Math.max(column, 0) };
}

/** "lib/app.js:12" with the path relative to cwd when the file is under it; '' without a script. */
export function frameLocation(url, lineNumber, cwd) {
  if (!url) return '';
  let file = url;
  if (url.startsWith('file://')) {
    try {
      file = fileURLToPath(url);
    } catch {
      // a malformed file URL is shown as it is
    }
  }
  if (path.isAbsolute(file)) {
    const relative = path.relative(cwd, file);
    if (relative && !relative.startsWith('..') && !path.isAbsolute(relative)) file = relative;
  }
  return lineNumber > 0 ? `${file}:${lineNumber}` : file;
}

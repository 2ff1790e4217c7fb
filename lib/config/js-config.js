// An ecosystem file written in JavaScript or TypeScript is user code: it runs in a
// short-lived child Node process (never in the daemon), with the file's directory as
// cwd and the caller's environment, under a time and size bound. The child hands the
// resulting plain object back on fd 3, so whatever the file prints on stdout cannot
// corrupt it (lib/config/js-config-child.mjs).

import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { which } from '../which.js';
import { EvaluatorTree, evaluationMarker } from './evaluator-tree.js';

const CHILD = fileURLToPath(new URL('./js-config-child.mjs', import.meta.url));

/** Extensions loaded by running the file. */
export const SCRIPT_EXTENSIONS = new Set(['.js', '.cjs', '.mjs', '.ts', '.cts', '.mts']);

/** A config file that runs longer than this is killed. */
const EVAL_TIMEOUT_MS = 10_000;
/** The most JSON a config file may produce (an ecosystem file is a few KB). */
const MAX_RESULT_BYTES = 4 * 1024 * 1024;
/** The child's V8 heap bound: an ecosystem file needs a few MB; one grew to 2 GB in 10 s. */
const HEAP_MB = 256;
/**
 * What the evaluator and the processes it starts may hold resident together
 * (evaluator-tree.js: Buffers live outside the heap; one file reached 2.8 GB past the heap
 * bound), and what it may allocate beyond what a Node process like this one maps before
 * it runs anything (RLIMIT_DATA, through prlimit: Node 24 maps ~560 MB of data at start,
 * Node 20 ~50 MB), the kernel's hard stop between two looks at its memory.
 */
const MEMORY_MB = 512;
const STDERR_KEPT = 4096;
const outOfMemory = `ran out of memory (more than ${HEAP_MB} MB of heap, ${MEMORY_MB} MB in all) before exporting a config; make the file build a small config`;
const EXIT_GRACE_MS = 1000;
const OUT_OF_MEMORY = /JavaScript heap out of memory|Reached heap limit/;

let tools;
/**
 * The child's command line: its heap bounded, its allocations too (prlimit --data, where
 * util-linux has it) and, through setpriv --pdeathsig where there is one, killed by the
 * kernel if this process dies first (it leads its own process group, out of reach of the
 * terminal's Ctrl-C).
 */
function childCommand(abs) {
  const linux = process.platform === 'linux';
  tools ??= { setpriv: (linux && which('setpriv')) || '', prlimit: (linux && which('prlimit')) || '' };
  const node = [process.execPath, `--max-old-space-size=${HEAP_MB}`, CHILD, abs];
  const limited = tools.prlimit ? [tools.prlimit, `--data=${ownDataBytes() + MEMORY_MB * 1024 * 1024}`, '--', ...node] : node;
  return tools.setpriv ? [tools.setpriv, '--pdeathsig', 'KILL', ...limited] : limited;
}

/** This process's data mappings (VmData): at least what the same Node maps to start. */
function ownDataBytes() {
  try {
    return Number(/^VmData:\s+(\d+) kB/m.exec(readFileSync('/proc/self/status', 'utf8'))?.[1] ?? 0) * 1024;
  } catch {
    return 0;
  }
}

/**
 * Run a JS/TS ecosystem file and take its exported config.
 * @param {string} file  path as the user gave it (used as is in messages)
 * @param {{ env?: NodeJS.ProcessEnv, timeoutMs?: number }} [o]  env: the caller's environment
 * @returns {Promise<{ data?: unknown, problem?: string }>}  problem: `<file>[:line:col]: <what>; <what to do>`
 */
export function evaluateConfigFile(file, { env = process.env, timeoutMs = EVAL_TIMEOUT_MS } = {}) {
  const abs = path.resolve(file);
  return new Promise((resolve) => {
    const [command, ...args] = childCommand(abs);
    const marker = evaluationMarker();
    const child = spawn(command, args, {
      cwd: path.dirname(abs),
      env: { ...env, [marker[0]]: marker[1] }, // inherited by all it starts: found at the end (evaluator-tree.js)
      stdio: ['ignore', 'ignore', 'pipe', 'pipe'],
      // Its own process group: what the file spawns or forks goes with it (killGroup).
      detached: true,
    });
    const chunks = [];
    let size = 0;
    let stderr = '';
    let settled = false;
    const finish = (outcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      killGroup(child);
      tree?.reap();
      resolve(outcome);
    };
    const tree = child.pid === undefined ? null : new EvaluatorTree(child.pid, {
      marker,
      maxRss: MEMORY_MB * 1024 * 1024,
      onOver: (rss) => finish({ problem: `${file}: used ${Math.round(rss / 1048576)} MB of memory (with the processes it started), more than the ${MEMORY_MB} MB a config file may; make the file build a small config` }),
    });
    const timer = setTimeout(() => finish({ problem: `${file}: did not finish within ${timeoutMs / 1000} s (an endless loop, or a promise that never settles?); make the file build its config and end` }), timeoutMs);
    // Out of file descriptors (EMFILE), spawn opens no pipes (no child.stdio): its 'error' says why.
    child.stdio?.[3]?.on('data', (d) => {
      size += d.length;
      if (size > MAX_RESULT_BYTES) finish({ problem: `${file}: produced more than ${MAX_RESULT_BYTES / 1024 / 1024} MB of config; export only the apps` });
      else chunks.push(d);
    });
    child.stderr?.on('data', (d) => (stderr = (stderr + d).slice(-STDERR_KEPT)));
    child.on('error', (err) => finish({ problem: `${file}: cannot run node to read it (${err.message}); check the daemon's node` }));
    // 'close' waits for fd 3 to close everywhere: a process the file started and left
    // running may hold it. Once the child itself has exited, what it wrote is what counts.
    // The grace's timer runs before the loop reads what is ready: after a stall longer than
    // the grace (a loaded machine), the reply can still be in the pipe then, so it is read
    // first (setImmediate runs after the next poll).
    child.on('exit', (code, signal) => setTimeout(() => setImmediate(() => settle(code, signal)), EXIT_GRACE_MS).unref());
    child.on('close', (code, signal) => settle(code, signal));
    function settle(code, signal) {
      const text = Buffer.concat(chunks).toString('utf8');
      let reply;
      try {
        reply = text ? JSON.parse(text) : null;
      } catch {
        reply = null;
      }
      if (reply && 'data' in reply) finish({ data: reply.data });
      else if (reply?.error) finish({ problem: threwProblem(file, reply.error) });
      else if (OUT_OF_MEMORY.test(stderr)) {
        finish({ problem: `${file}: ${outOfMemory}` });
      } else if (text) {
        finish({ problem: `${file}: its result could not be read (something else wrote to file descriptor 3, where the config is handed over); leave fd 3 alone` });
      } else {
        const how = signal ? `was killed by ${signal}` : `exited with code ${code}`;
        const last = stderr.trim().split('\n').at(-1);
        finish({ problem: `${file}: ${how} before exporting a config${last ? ` (${last.slice(0, 200)})` : ''}; make the file export its config and not exit` });
      }
    }
  });
}

/** The child's process group, and whatever the file started in it, is killed (it may already be gone). */
function killGroup(child) {
  try {
    process.kill(-child.pid, 'SIGKILL');
  } catch {}
}

/** What the child reported about a throw (or a bad export), as one problem line. */
function threwProblem(file, { message, line, col, kind }) {
  const where = line ? `${file}:${line}${col ? `:${col}` : ''}` : file;
  const firstLine = String(message).split('\n')[0].slice(0, 300);
  if (kind === 'export') return `${where}: ${firstLine}`;
  // An allocation past RLIMIT_DATA (a Buffer: the heap bound does not see it; Node 24 says
  // "Failed to allocate memory" where 20 and 22 say "Array buffer allocation failed").
  if (/^RangeError: (Array buffer allocation failed|Failed to allocate memory)|ENOMEM|Cannot allocate memory/.test(firstLine)) return `${where}: ${outOfMemory}`;
  if (/ is not defined in ES module scope/.test(firstLine)) {
    return `${where}: ${firstLine}: the nearest package.json has "type": "module"; rename the file to .cjs, or write export default { apps: [...] }`;
  }
  return `${where}: the file threw ${firstLine}; fix the file (or the environment it reads)`;
}

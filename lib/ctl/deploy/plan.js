// `super deploy`'s options, checked into a plan: hosts paired with their HAProxy server
// names, durations in ms, the rollout's shape (max_parallel, canary, promotion, revert and
// the error-rate gate), modelled on Nomad's `update` block.
import { randomBytes } from 'node:crypto';
import { SuperError } from '../../errors.js';
import { parseDuration } from '../../config/units.js';
import { toTargets } from '../targets.js';

const NAME_RE = /^[A-Za-z0-9][A-Za-z0-9._:+-]{0,127}$/;

/**
 * @typedef {{hosts?: string[], server?: string[], haproxy?: string, backend?: string, app?: string,
 *   minHealthyTime?: string, drainTimeout?: string, release?: string, from?: string, step?: string,
 *   stepTimeout?: string, healthyDeadline?: string, maxParallel?: string, canary?: string, promote?: boolean, autoPromote?: boolean,
 *   autoRevert?: boolean, maxErrorRate?: string, json?: boolean}} DeployOptions
 */

/** @param {DeployOptions} opts */
export function deployPlan({
  hosts = [], server = [], haproxy, backend, app = 'all', minHealthyTime = '2s', drainTimeout = '30s', release, from, step,
  stepTimeout = '5m', healthyDeadline, maxParallel = '1', canary = '0', promote = false, autoPromote = false, autoRevert = false, maxErrorRate,
}) {
  if (!hosts.length) throw new SuperError('E_USAGE', 'super deploy needs the hosts: --host H:P --server NAME for each (its control listener, and its server name in HAProxy)');
  if (hosts.length !== server.length) throw new SuperError('E_USAGE', `super deploy: ${hosts.length} --host and ${server.length} --server; give one --server (the host's name in HAProxy's backend) per --host, in the same order`);
  if (!haproxy || !backend) throw new SuperError('E_USAGE', 'super deploy needs --haproxy (HAProxy\'s runtime API: its stats socket with level admin) and --backend (the backend of the servers)');
  if (new Set(server).size !== server.length) throw new SuperError('E_USAGE', `super deploy: a --server is named twice (${server.join(', ')})`);
  for (const [flag, v] of [['release', release], ['from', from]]) {
    if (v !== undefined && !NAME_RE.test(v)) throw new SuperError('E_USAGE', `--${flag} ${v}: give a release name of letters, digits and . _ : + - (up to 128)`);
  }
  if (autoRevert && !step) throw new SuperError('E_USAGE', '--auto-revert needs --step: reverting a host runs the step with the previous release (SUPER_DEPLOY_RELEASE), then reloads it');
  if (step !== undefined && !step.trim()) throw new SuperError('E_USAGE', '--step: give a shell command');
  const ms = (flag, v) => {
    const n = parseDuration(v);
    if (n === null || n === undefined || !Number.isFinite(n)) throw new SuperError('E_USAGE', `--${flag} ${v}: give a duration like 2s or 500ms`);
    return n;
  };
  const count = (flag, v, min) => {
    const n = Number(v);
    if (!/^\d{1,4}$/.test(String(v)) || n < min) throw new SuperError('E_USAGE', `--${flag} ${v}: give a whole number from ${min}`);
    return n;
  };
  const canaries = count('canary', canary, 0);
  if (canaries && !autoPromote && release === undefined) throw new SuperError('E_USAGE', '--canary without --auto-promote pauses after the canaries: give --release, so that the same command with --promote continues that rollout');
  if (canaries >= hosts.length && canaries > 0) throw new SuperError('E_USAGE', `--canary ${canaries}: give fewer canaries than hosts (${hosts.length})`);
  return {
    hosts: hosts.map((host, i) => ({ host, server: server[i] })),
    haproxy,
    backend,
    target: toTargets([app]),
    minHealthy: ms('min-healthy-time', minHealthyTime),
    drainTimeout: ms('drain-timeout', drainTimeout),
    stepTimeout: ms('step-timeout', stepTimeout),
    // Nomad's healthy_deadline: healthy (and UP again at the balancer) within this of the reload
    healthyDeadline: healthyDeadline === undefined ? ms('min-healthy-time', minHealthyTime) + 30000 : ms('healthy-deadline', healthyDeadline),
    maxParallel: count('max-parallel', maxParallel, 1),
    canary: canaries,
    promote: promote || autoPromote,
    autoPromote,
    autoRevert,
    step: step ?? null,
    maxErrorRate: maxErrorRate === undefined ? null : errorRate(maxErrorRate),
    // No --release: a rollout of its own, which a re-run does not continue (it rolls every host again).
    release: release ?? `run-${Date.now().toString(36)}-${randomBytes(3).toString('hex')}`,
    resumable: release !== undefined,
    from: from ?? null,
    id: randomBytes(6).toString('hex'),
  };
}

/** "1%", "0.5%" or "0.01" -> 0.01; E_USAGE outside 0..1. */
function errorRate(v) {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(%?)\s*$/.exec(v);
  const n = m ? Number(m[1]) / (m[2] ? 100 : 1) : NaN;
  if (!(n >= 0 && n <= 1)) throw new SuperError('E_USAGE', `--max-error-rate ${v}: give a share of failed requests like 1% or 0.01`);
  return n;
}

/** @typedef {ReturnType<typeof deployPlan>} DeployPlan */

// The words of `super deploy`'s progress: one line per host step (--json prints the step's
// name and its figures instead).

/**
 * @param {string} step
 * @param {Record<string, any>} extra
 */
export function describeStep(step, extra) {
  switch (step) {
    case 'drain': return 'draining at the balancer';
    case 'drained': return extra.sessions_left ? `drain timeout, ${extra.sessions_left} session(s) left; reloading anyway` : 'no session left';
    case 'step': return 'step done';
    case 'reloaded': return `reloaded ${extra.apps.join(', ')}; waiting until healthy`;
    case 'gate': return 'UP; watching its error rate at the balancer';
    case 'gated': return `${extra.failed} of ${extra.requests} requests failed at the balancer: passed`;
    case 'ready': return `ready again, UP at the balancer (${(extra.ms / 1000).toFixed(1)} s)`;
    case 'skipped': return 'already on this release (an earlier run): skipped';
    case 'paused': return `canary done; paused, ${extra.left} host(s) left: run the same command with --promote to go on`;
    case 'promoted': return 'canary done; promoted';
    case 'failed': return `FAILED: ${extra.reason}`;
    case 'reverting': return `reverting to ${extra.to}`;
    case 'reverted': return `reverted to ${extra.to}, ready again`;
    case 'left-drained': return 'left drained at the balancer';
    default: return step;
  }
}

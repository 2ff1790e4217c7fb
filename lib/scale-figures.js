// The figures an autoscale rule watches, as each worker's agent reports them, and how a
// log line or `super ls` writes them: the config (lib/config/autoscale.js), the decision
// and its log (lib/master/autoscale) and `ls` (lib/ctl/render-ls.js) share them.

export const SCALE_FIGURES = /** @type {const} */ (['elu', 'loop_delay', 'inflight']);

/** `elu 0.91`, `loop_delay 152 ms`, `inflight 3`. @param {string} key  @param {unknown} value */
export const figureText = (key, value) => `${key} ${value}${key === 'loop_delay' ? ' ms' : ''}`;

/** `elu 0.91, loop_delay 152 ms` of {elu: 0.91, loop_delay: 152}. @param {object|null|undefined} figures */
export const figuresText = (figures) => Object.entries(figures ?? {}).map(([k, v]) => figureText(k, v)).join(', ');

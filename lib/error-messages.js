// Messages said in more than one place, written once (as fastify's createError(code,
// message)): a coded error (lib/errors.js) with its template, or the words of a reason.
import { SuperError } from './errors.js';

/**
 * A factory of SuperErrors of `code` whose message is `template` with each %s replaced, in
 * order, by an argument. An unknown code throws at once, when the module loads.
 * @param {keyof import('./errors.js').CODES} code
 * @param {string} template
 * @returns {(...args: unknown[]) => SuperError}
 */
export function coded(code, template) {
  new SuperError(code, template);
  return (...args) => new SuperError(code, template.replace(/%s/g, () => String(args.shift())));
}

/** An app that runs another operation: app name, the operation. */
export const appBusy = coded('E_BUSY', '%s is busy (%s); try again when it is done');

/** The readiness bound a worker missed, as a start, a scale and a reload say it. */
export const readyBound = (config) => `within listen_timeout (${config.listen_timeout} ms, ready_on: ${config.ready_on})`;

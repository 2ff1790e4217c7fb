// The imported apps as a superd ecosystem.yml: what could not be carried over first, as
// comments, then the apps (js-yaml).
import yaml from 'js-yaml';
import { printable } from '../printable.js';

/**
 * @param {{ source: string, apps: object[], notes: string[] }} imported
 * @returns {string}
 */
export function renderEcosystem({ source, apps, notes }) {
  const head = [`# superd ecosystem imported from PM2 (${printable(source)}) by \`super import pm2\`.`];
  if (notes.length) {
    head.push('# Not carried over, or changed:');
    for (const n of notes) head.push(`#   - ${printable(n)}`); // a comment is one line, shown by cat
  } else head.push('# Everything was carried over.');
  head.push('# Check it, then: super start <this file>');
  const body = yaml.dump({ apps }, { lineWidth: -1, noRefs: true, schema: yaml.CORE_SCHEMA });
  return `${head.join('\n')}\n${body}`;
}

// Environment values whose names look secret are never printed (describe, ls --json, logs of config).
const SECRET_NAME = /(secret|passw(or)?d|passwd|token|api[_-]?key|private[_-]?key|access[_-]?key|credential|auth|cookie|session|dsn|signature|salt)/i;

export const looksSecret = (name) => SECRET_NAME.test(name);

export function maskEnv(env) {
  const out = {};
  for (const [k, v] of Object.entries(env ?? {})) out[k] = looksSecret(k) ? '********' : v;
  return out;
}

/** A copy of an app config safe to show: env and env_<name> maps masked. */
export function maskConfig(config) {
  const out = { ...config };
  for (const k of Object.keys(out)) if (k === 'env' || k.startsWith('env_')) out[k] = maskEnv(out[k]);
  return out;
}

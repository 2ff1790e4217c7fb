// Secrets never leave the daemon in what it shows (describe, its replies, its log): the
// value of an environment variable whose name looks secret is replaced by MASK, and so
// is the password of any URL with credentials (postgres://user:pass@host: PM2 users leak
// these in `pm2 env` and `pm2 describe`), of a connection string (Password=...) and of a
// DSN (user:pass@tcp(host)/db), and so is any value that looks like a credential whatever
// its name (STRIPE=sk_live_..., a private key, a JWT, a cloud key: see VALUE_SECRETS). The saved dump keeps real values: resurrect
// needs them (dump.json is 0600). The CLI's `super check` shows a file's env the same way.
export const MASK = '********';

// Words that mark a secret anywhere in the name (separators ignored: DBPASSWORD, db-password).
const SECRET_ANYWHERE = /secret|passw(or)?d|passphrase|token|api_?key|private_?key|access_?key|credential|cookie|signature|dsn/i;
// Words that mark a secret only as a whole word of the name: STRIPE_KEY, apiKey, KEY, PWD,
// BASIC_AUTH, but not KEYBOARD_LAYOUT, MONKEY, AUTHOR or PASSENGERS.
const SECRET_WORDS = new Set(['key', 'keys', 'pwd', 'pass', 'auth', 'authorization', 'salt', 'session', 'jwt', 'bearer', 'otp', 'creds', 'pin']);

/** True when an environment variable of that name probably holds a secret. */
export function looksSecret(name) {
  if (SECRET_ANYWHERE.test(name.replace(/[-_.\s]/g, '_'))) return true;
  // words: split at separators and at camelCase humps (apiKey -> api, key)
  const words = name.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toLowerCase().split(/[^a-z0-9]+/);
  return words.some((w) => SECRET_WORDS.has(w));
}

// scheme://user:password@  (the password is everything up to the last @ of the authority)
const URL_CREDENTIALS = /\b([a-z][a-z0-9+.-]*:\/\/[^:/?#@\s]*:)[^/?#\s]*@/gi;

/** The text with the password of every URL in it masked. */
export const maskUrlCredentials = (text) => text.replace(URL_CREDENTIALS, `$1${MASK}@`);

// Connection strings without a URL: `Server=db;Password=x;` (ADO, ODBC, libpq's
// `password=x`), and a DSN that starts with user:password@ (Go's MySQL `app:x@tcp(db)/app`).
const KEYWORD_PASSWORD = /\b((?:password|passwd|pwd)\s*=\s*)[^;&\s]+/gi;
const DSN_CREDENTIALS = /^([^:/@\s]+:)(?!\/\/)[^@\s]+@/;

// Values that are credentials by their shape, whatever the variable's name: the well-known
// prefixes of API keys and tokens, private keys in PEM, JWTs.
const VALUE_SECRETS = new RegExp([
  String.raw`-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z0-9 ]*PRIVATE KEY-----|$)`,
  String.raw`\b(?:sk|rk)_(?:live|test)_[0-9A-Za-z]{8,}`, // Stripe secret and restricted keys
  String.raw`\bwhsec_[0-9A-Za-z]{8,}`, // Stripe webhook secrets
  String.raw`\bgh[pousr]_[0-9A-Za-z]{20,}`, String.raw`\bgithub_pat_[0-9A-Za-z_]{20,}`, // GitHub
  String.raw`\bglpat-[0-9A-Za-z_-]{20,}`, // GitLab
  String.raw`\bxox[abposr]-[0-9A-Za-z-]{10,}`, // Slack
  String.raw`\b(?:AKIA|ASIA)[0-9A-Z]{16}\b`, // AWS access key ids
  String.raw`\bAIza[0-9A-Za-z_-]{35}`, // Google API keys
  String.raw`\bnpm_[0-9A-Za-z]{36}`, String.raw`\bhf_[0-9A-Za-z]{30,}`, // npm, Hugging Face
  String.raw`\bSG\.[0-9A-Za-z_-]{16,}\.[0-9A-Za-z_-]{16,}`, // SendGrid
  String.raw`\bsk-(?:proj-|ant-)?[0-9A-Za-z_-]{20,}`, // OpenAI, Anthropic
  String.raw`\beyJ[0-9A-Za-z_-]{8,}\.eyJ[0-9A-Za-z_-]{8,}\.[0-9A-Za-z_-]*`, // JWTs (header.payload.signature)
].join('|'), 'g');

/** The text with every password and credential-shaped value it shows masked. */
const maskSecretText = (text) => maskUrlCredentials(text).replace(KEYWORD_PASSWORD, `$1${MASK}`).replace(DSN_CREDENTIALS, `$1${MASK}@`).replace(VALUE_SECRETS, MASK);

/** A copy of an environment map safe to show. */
export function maskEnv(env) {
  const out = {};
  for (const [k, v] of Object.entries(env ?? {})) out[k] = looksSecret(k) ? MASK : typeof v === 'string' ? maskSecretText(v) : v;
  return out;
}

/** A copy of an app config safe to show: env and env_<name> masked, URL passwords masked everywhere. */
export function maskConfig(config) {
  const out = {};
  for (const [k, v] of Object.entries(config)) out[k] = k === 'env' || k.startsWith('env_') ? maskEnv(v) : maskStrings(v);
  return out;
}

function maskStrings(v) {
  if (typeof v === 'string') return maskSecretText(v);
  if (Array.isArray(v)) return v.map(maskStrings);
  if (v !== null && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, maskStrings(x)]));
  return v;
}

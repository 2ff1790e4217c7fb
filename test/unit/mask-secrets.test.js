// Which environment variable names count as secret, and URL passwords in any value.
import test from 'node:test';
import assert from 'node:assert/strict';
import { looksSecret, maskEnv, maskConfig, maskUrlCredentials, MASK } from '../../lib/mask-secrets.js';

test('secret-looking names', () => {
  const secret = ['DB_PASSWORD', 'PASSWORD', 'db_passwd', 'MYSQL_PWD', 'PGPASSWORD', 'REDIS_PASS', 'API_TOKEN', 'GITHUB_TOKEN', 'SECRET_KEY',
    'AWS_SECRET_ACCESS_KEY', 'AWS_ACCESS_KEY_ID', 'STRIPE_KEY', 'ENCRYPTION_KEY', 'KEY', 'SSH_KEYS', 'apiKey', 'privateKey', 'API-KEY', 'APIKEY',
    'SENTRY_DSN', 'JWT_SECRET', 'JWT', 'SESSION_SECRET', 'COOKIE_SECRET', 'BASIC_AUTH', 'AUTHORIZATION', 'NPM_AUTH_TOKEN', 'GOOGLE_APPLICATION_CREDENTIALS',
    'PASSPHRASE', 'WEBHOOK_SIGNATURE', 'HASH_SALT', 'SMTP_CREDS', 'app.secret', 'client_secret', 'ADMIN_PIN'];
  const plain = ['PORT', 'NODE_ENV', 'HOST', 'KEYBOARD_LAYOUT', 'MONKEY', 'AUTHOR', 'AUTHOR_EMAIL', 'PASSENGERS', 'DATABASE_URL', 'LOG_LEVEL', 'TURKEY',
    'KEYCLOAK_REALM', 'HOCKEY_TEAM', 'PATH', 'HOME', 'OAUTH_CLIENT_ID', 'SPINNER', 'PUBLIC_URL', 'COMPASS', 'BYPASS_CACHE'];
  for (const n of secret) assert.equal(looksSecret(n), true, `${n} should be masked`);
  for (const n of plain) assert.equal(looksSecret(n), false, `${n} should be shown`);
});

test('URL passwords are masked in any value', () => {
  assert.equal(maskUrlCredentials('postgres://user:s3cr3t@db.example.com:5432/app'), `postgres://user:${MASK}@db.example.com:5432/app`);
  assert.equal(maskUrlCredentials('redis://:p@ss@cache:6379'), `redis://:${MASK}@cache:6379`);
  assert.equal(maskUrlCredentials('--db=mongodb+srv://admin:hunter2@cluster0/x?retryWrites=true and amqp://u:pw@mq'), `--db=mongodb+srv://admin:${MASK}@cluster0/x?retryWrites=true and amqp://u:${MASK}@mq`);
  for (const same of ['http://example.com:8080/path', 'https://user@host/x', 'not a url: a:b@c', 'mailto:x@y.z']) assert.equal(maskUrlCredentials(same), same);
});

test('maskEnv and maskConfig mask values, never names, and leave the input alone', () => {
  const env = { DB_PASSWORD: 'hunter2', PORT: '3000', DATABASE_URL: 'postgres://u:pw@h/db', N: 5 };
  assert.deepEqual(maskEnv(env), { DB_PASSWORD: MASK, PORT: '3000', DATABASE_URL: `postgres://u:${MASK}@h/db`, N: 5 });
  assert.equal(env.DB_PASSWORD, 'hunter2');
  const config = { name: 'api', env, env_production: { API_TOKEN: 't' }, args: ['--url', 'amqp://a:b@mq'], node_args: [], instances: 2 };
  const out = maskConfig(config);
  assert.deepEqual(out.env_production, { API_TOKEN: MASK });
  assert.deepEqual(out.args, ['--url', `amqp://a:${MASK}@mq`]);
  assert.equal(out.instances, 2);
  assert.equal(config.args[1], 'amqp://a:b@mq');
});

test('values shaped like credentials are masked whatever the name (issue 36, major 3)', () => {
  const secrets = {
    STRIPE: 'sk_live_4eC39HqLyjWDarjtT1zdp7dc', STRIPE_T: 'sk_test_4eC39HqLyjWDarjtT1zdp7dc', HOOK: 'whsec_abcdefgh12345678',
    GH: `ghp_${'a1B2'.repeat(9)}`, GH_PAT: `github_pat_${'x'.repeat(40)}`, GL: `glpat-${'y'.repeat(20)}`, SLACK: 'xoxb-123456789012-1234567890123-abcdef',
    AWS: 'AKIAIOSFODNN7EXAMPLE', GOOGLE: `AIza${'S'.repeat(35)}`, NPMRC: `npm_${'n'.repeat(36)}`, SG: `SG.${'a'.repeat(22)}.${'b'.repeat(43)}`,
    OPENAI: `sk-proj-${'z'.repeat(40)}`, PEM: '-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA\n-----END RSA PRIVATE KEY-----',
    BEARER_LIKE: 'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U',
  };
  const masked = maskEnv(secrets);
  for (const [k, v] of Object.entries(secrets)) assert.ok(!JSON.stringify(masked[k]).includes(v.slice(6, 20)), `${k}: ${masked[k]}`);
  assert.equal(maskEnv({ NOTE: 'key sk_live_abcdefgh12 in text' }).NOTE, `key ${MASK} in text`);
  assert.deepEqual(maskConfig({ args: ['--key', 'AKIAIOSFODNN7EXAMPLE'] }).args, ['--key', MASK]);
  const plain = { PORT: '3000', NODE_ENV: 'production', DESC: 'ask_live_events', URL: 'https://example.com/eyJ', NAME: 'sk-short', ID: 'AKIA' };
  assert.deepEqual(maskEnv(plain), plain);
});

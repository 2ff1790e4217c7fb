// ESLint's recommended rules over the whole repository (`npm run lint`), with Node's
// globals; the agent's and a few tools' CommonJS files get CommonJS's.
import js from '@eslint/js';
import globals from 'globals';

export default [
  { ignores: ['node_modules/', '.test-nodes/', 'lib/config/schema-validator.generated.js'] },
  js.configs.recommended,
  {
    languageOptions: { ecmaVersion: 2024, sourceType: 'module', globals: { ...globals.node } },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      // `catch {}` where a failure changes nothing (a process already gone, a file already removed).
      'no-empty': ['error', { allowEmptyCatch: true }],
      // Matching control characters is the point where it happens: escaping what apps and
      // files print before it reaches a terminal, and the tests that check that escaping.
      'no-control-regex': 'off',
      // `const { stopped, ...entry } = a` is how an object loses a key.
      'no-unused-vars': ['error', { ignoreRestSiblings: true }],
    },
  },
  { files: ['**/*.cjs'], languageOptions: { sourceType: 'commonjs' } },
];

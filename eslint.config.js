import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      'node_modules/',
      'data/',
      '.services/',
      '.runtimes/',
      'bench/results/',
      'apps/cli/bin/',
      'dist/',
      'apps/web/src/api.gen.ts',
      'apps/web/dist/',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { process: 'readonly', console: 'readonly' } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      // Prettier owns layout; this rule misreads its chained-call line breaks.
      'no-unexpected-multiline': 'off',
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/libs/*/*', '../../libs/**', '../libs/**'],
              message: 'Import a lib through its public surface: #<lib>.',
            },
          ],
        },
      ],
    },
  },
  {
    // Tests read untyped JSON bodies freely; the assertions are what type them.
    files: ['test/**/*.ts', '**/*.test.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    // Only config modules may read the environment.
    files: ['apps/**/*.ts', 'libs/**/*.ts'],
    ignores: ['**/config.ts', '**/*.test.ts'],
    rules: {
      'no-restricted-properties': [
        'error',
        { object: 'process', property: 'env', message: 'Read configuration through the app config module.' },
      ],
    },
  },
);

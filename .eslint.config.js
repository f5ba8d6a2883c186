// ESLint flat config (a dotfile because the repository's top level is fixed).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';

const features = ['auth', 'folders', 'upload', 'matches', 'image-search', 'credentials', 'review'];

const zone = (files, patterns) => ({
  files,
  rules: { 'no-restricted-imports': ['error', { patterns }] },
});

export default tseslint.config(
  { ignores: ['dist', 'node_modules', '.data', 'test-results', 'playwright-report', '.bench'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.browser, ...globals.node } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
    },
  },
  {
    files: ['src/{app,features,api,viewer}/**/*.{ts,tsx}', 'src/main.tsx'],
    plugins: { 'react-hooks': reactHooks },
    rules: { ...reactHooks.configs.recommended.rules },
  },
  // Boundaries (conventions.md, In this repo 5).
  zone(['src/{app,features,api,viewer,contract,geometry}/**', 'src/main.tsx'], [
    { group: ['**/service/**', '**/service'], message: 'The app never imports the service.' },
  ]),
  zone(['src/service/**'], [
    { group: ['react', 'react-dom', '**/features/**', '**/app/**', '**/api/**', '**/viewer/**'], message: 'The service never imports app code.' },
  ]),
  // Tests may read sample files from disk; the geometry code itself may not.
  zone(['src/geometry/**'], [
    { group: ['react', 'react-dom', 'node:*', 'fs', 'path', '**/service/**', '**/features/**'], message: 'geometry/ is pure: no React, DOM or Node I/O.' },
  ]),
  { files: ['src/geometry/**/*.test.ts'], rules: { 'no-restricted-imports': 'off' } },
  zone(['src/contract/**'], [
    { group: ['react', 'node:*', '**/service/**', '**/features/**', '**/api/**', '**/app/**'], message: 'contract/ holds schemas only.' },
  ]),
  // Features never import each other; auth is the exception: it provides the signed-in user.
  // (A later block replaces an earlier one's rule for the same files, so the service ban is repeated.)
  ...features.map((feature) =>
    zone([`src/features/${feature}/**`], [
      { group: ['**/service/**', '**/service'], message: 'The app never imports the service.' },
      {
        group: features
          .filter((other) => other !== feature && other !== 'auth')
          .flatMap((other) => [`**/features/${other}/**`, `../${other}/**`, `../../${other}/**`, `../../../${other}/**`]),
        message: 'Features do not import each other.',
      },
    ]),
  ),
);

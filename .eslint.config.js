// ESLint flat config (a dotfile because the repository's top level is fixed).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';
import fs from 'node:fs';

// Every folder under src/features is a feature: a new one is fenced in the day it is created.
const features = fs
  .readdirSync(new URL('./src/features', import.meta.url), { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name);
// Features the others may import: auth provides the signed-in user.
const providers = ['auth'];

// Test support: testing/ folders, *.test.* files and test-* (or *-test-helpers) helpers.
const testFiles = ['**/testing/**', '**/*.test.*', '**/test-*', '**/*-test-helpers.*'];
const testSupport = {
  group: ['**/testing/**', '**/testing', '**/*.test', '**/*.test.*', '**/test-*', '**/*-test-helpers', '**/*-test-helpers.*'],
  message: 'Production code never imports test support (testing/ folders, *.test.*, test-* helpers); only tests and testing/ folders may.',
};

// One block per room, and one more for the room's tests: a later block replaces an earlier one's
// rule for the same files, so each block carries the room's whole list.
const zone = (files, patterns) => [
  { files, ignores: testFiles, rules: { 'no-restricted-imports': ['error', { patterns: [...patterns, testSupport] }] } },
  {
    files: files
      .filter((glob) => glob.endsWith('/**'))
      .flatMap((glob) => testFiles.map((test) => `${glob.slice(0, -'/**'.length)}/${test}`)),
    rules: { 'no-restricted-imports': ['error', { patterns }] },
  },
];

const noService = { group: ['**/service/**', '**/service'], message: 'The app never imports the service.' };
const noFeature = { group: ['**/features/**', '**/features'], message: 'Shared code imports no feature.' };
const noShell = {
  group: ['**/app/**', '**/app'],
  message: 'Only the shell (src/main.tsx, src/app) imports src/app; shared pieces live in src/ui.',
};

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
    files: ['src/{app,ui,features,api,viewer}/**/*.{ts,tsx}', 'src/main.tsx'],
    plugins: { 'react-hooks': reactHooks },
    rules: { ...reactHooks.configs.recommended.rules },
  },
  // Boundaries: the app (shell, shared UI, features, API client, viewer) never imports the service;
  // features never import each other (providers aside) nor the shell; shared code imports no feature.
  ...zone(['src/app/**', 'src/main.tsx'], [noService]),
  ...zone(['src/{ui,api,viewer}/**'], [noService, noFeature, noShell]),
  ...zone(
    ['src/service/**'],
    [
      {
        group: ['react', 'react-dom', '**/features/**', '**/app/**', '**/api/**', '**/viewer/**', '**/ui/**'],
        message: 'The service never imports app code.',
      },
    ],
  ),
  // Tests may read sample files from disk; the geometry code itself may not.
  ...zone(
    ['src/geometry/**'],
    [
      {
        group: ['react', 'react-dom', 'node:*', 'fs', 'path', '**/service/**', '**/features/**'],
        message: 'geometry/ is pure: no React, DOM or Node I/O.',
      },
    ],
  ),
  { files: ['src/geometry/**/*.test.ts'], rules: { 'no-restricted-imports': 'off' } },
  ...zone(
    ['src/contract/**'],
    [
      {
        group: ['react', 'node:*', '**/service/**', '**/features/**', '**/api/**', '**/app/**', '**/ui/**'],
        message: 'contract/ holds schemas only.',
      },
    ],
  ),
  ...features.flatMap((feature) =>
    zone(
      [`src/features/${feature}/**`],
      [
        noService,
        noShell,
        {
          group: features
            .filter((other) => other !== feature && !providers.includes(other))
            .flatMap((other) => [
              `**/features/${other}/**`,
              `**/features/${other}`,
              `../${other}/**`,
              `../../${other}/**`,
              `../../../${other}/**`,
            ]),
          message: `Features do not import each other (only ${providers.join(', ')}); shared pieces live in src/ui.`,
        },
      ],
    ),
  ),
);

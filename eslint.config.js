// ESLint, type-aware through typescript-eslint (the typed rules read the TypeScript 6 API: see
// README "Development" for why `typescript` is the 6.0 compatibility package and `tsc` is 7).
// A short list of rules that catch real faults, not a style guide: formatting is prettier's.
import js from '@eslint/js';
import { defineConfig } from 'eslint/config';
import regexp from 'eslint-plugin-regexp';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default defineConfig(
  { ignores: ['node_modules/', 'dist/', '.tap/', 'scratch*/', 'bench/results/', '.gov-preview/'] },
  {
    files: ['**/*.{ts,tsx,js,mjs,cjs}'],
    languageOptions: { ecmaVersion: 2024, sourceType: 'module', globals: globals.node },
    // Some disable comments name rules not switched on (yet), such as no-explicit-any: keep them quiet.
    linterOptions: { reportUnusedDisableDirectives: 'off' },
    rules: {
      'no-debugger': 'error',
      'no-dupe-keys': 'error',
      'no-unreachable': 'error',
      'no-self-compare': 'error',
      'no-sparse-arrays': 'error',
      eqeqeq: ['error', 'always', { null: 'ignore' }],
    },
  },
  {
    files: ['**/*.{ts,tsx}'],
    extends: [tseslint.configs.base],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      // A promise nobody awaits loses its rejection: the write path's answers depend on every fsync.
      // tap queues a subtest itself; `t.test(...)` is not awaited by design.
      '@typescript-eslint/no-floating-promises': ['error', { allowForKnownSafeCalls: [{ from: 'package', package: '@tapjs/test', name: 'test' }] }],
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: false }],
      '@typescript-eslint/await-thenable': 'error',
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      '@typescript-eslint/no-import-type-side-effects': 'error',
    },
  },
  {
    files: ['**/*.{js,mjs,cjs}'],
    extends: [js.configs.recommended],
  },
  {
    // The server is one event loop: a regex that backtracks super-linearly on caller text (a
    // lookbehind scanning back over a run of blanks at every position) holds every other request.
    files: ['src/**/*.ts'],
    plugins: { regexp },
    rules: {
      'regexp/no-super-linear-backtracking': 'error',
      'regexp/no-super-linear-move': 'error',
    },
  },
  {
    // stdout is the MCP protocol channel of `gov mcp` and the one --json document of every command.
    // Output goes through the CLI's io (render.ts prints a command's result) or to stderr.
    files: ['src/**/*.ts'],
    rules: {
      'no-console': 'error',
      'no-restricted-properties': [
        'error',
        { object: 'process', property: 'stdout', message: 'stdout belongs to the CLI io (render) and the MCP transport: write through io.stdout or to stderr.' },
        { object: 'globalThis', property: 'console', message: 'no console in src/: write through the CLI io or to stderr.' },
        // Hono's `c.var` is a getter that copies every request variable into a new object per read.
        { object: 'c', property: 'var', message: "c.var copies all of a request's variables on every read: use c.get('name')." },
      ],
    },
  },
  {
    // The two places that own stdout: the CLI's process io, and `gov mcp` handing it to the transport.
    files: ['src/cli/main.ts', 'src/cli/commands/mcp.ts'],
    rules: { 'no-restricted-properties': ['error', { object: 'globalThis', property: 'console' }] },
  },
);

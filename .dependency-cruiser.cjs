// The layer rules of docs/architecture.md ("Dependencies point inward"), checked by
// dependency-cruiser on every `npm test` (`npm run depcruise`). Paths are relative to the folder it
// runs in; test/frontdoor/layers.test.ts runs it on a throw-away tree to prove each rule bites.
// Type-only imports count too: a layer that needs another's types depends on it.
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'domain-is-pure',
      comment: 'domain/ is pure rules: of ours it imports only other domain modules and src/errors.ts.',
      severity: 'error',
      from: { path: '^src/domain/' },
      to: { path: '^src/', pathNot: ['^src/domain/', '^src/errors\\.ts$'] },
    },
    {
      name: 'domain-has-no-io',
      comment: 'domain/ has no files, database, processes or network: those are parameters or live in store/.',
      severity: 'error',
      from: { path: '^src/domain/' },
      to: { dependencyTypes: ['core', 'npm'], path: '^(node:)?(fs|fs/promises|child_process|net|http|https|worker_threads|dgram|cluster)$|^(better-sqlite3|pg|proper-lockfile)$' },
    },
    {
      name: 'store-imports-domain-only',
      comment: 'store/ builds on domain/ (and src/errors.ts) and on nothing above it.',
      severity: 'error',
      from: { path: '^src/store/' },
      to: { path: '^src/', pathNot: ['^src/store/', '^src/domain/', '^src/errors\\.ts$'] },
    },
    {
      name: 'service-not-server',
      comment: 'service/ is what every transport calls; it never knows the HTTP server.',
      severity: 'error',
      from: { path: '^src/service/' },
      to: { path: '^src/server/' },
    },
    {
      name: 'api-only',
      comment: 'client, smoke and the MCP front door work against any server over HTTP (docs/contract.md §11, §12): never the store or the services.',
      severity: 'error',
      from: { path: '^src/(client|smoke|frontdoor)/' },
      to: { path: '^src/(store|service)/' },
    },
    {
      name: 'api-only-no-local-fallback',
      comment: 'the client and the front door open no files and no store of their own: the CLI hands them what they read.',
      severity: 'error',
      from: { path: '^src/(client|frontdoor)/' },
      to: { path: ['^src/deps\\.ts$', '^(node:)?(fs|fs/promises)$', '^(better-sqlite3|proper-lockfile)$'] },
    },
    {
      name: 'console-is-a-page',
      comment: 'the console (src/console) runs in the browser over the HTTP API only: of ours it imports the typed client, pure domain rules and src/errors.ts.',
      severity: 'error',
      from: { path: '^src/console/' },
      to: { path: '^src/', pathNot: ['^src/console/', '^src/client/', '^src/domain/', '^src/errors\\.ts$', '^src/error-catalogue\\.ts$'] },
    },
    {
      name: 'console-has-no-node',
      comment: 'the console runs in the browser: no Node.js core module.',
      severity: 'error',
      from: { path: '^src/console/' },
      to: { dependencyTypes: ['core'] },
    },
    {
      name: 'nothing-imports-test',
      comment: 'test/ may use src/, never the other way round.',
      severity: 'error',
      from: { pathNot: '^test/' },
      to: { path: '^test/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    enhancedResolveOptions: { extensions: ['.ts', '.tsx', '.js', '.mjs', '.json'], conditionNames: ['import', 'require', 'node', 'default'] },
  },
};

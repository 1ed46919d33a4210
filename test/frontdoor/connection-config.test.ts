// Where gov mcp finds the API: flags, then GOV_BASE_URL/GOV_TOKEN, then run.json; which files it
// reads for each combination (run.json only when something is still missing), and the failures.
import t from 'tap';
import { resolveConnection, scopeFromEnv } from '../../src/frontdoor/connection-config.ts';

const DATA = '/data';
const RUN = '/data/run.json';
const files: Record<string, string> = {
  [RUN]: JSON.stringify({ base_url: 'http://127.0.0.1:7001', tokens: { customer: 'run-customer', operator: 'run-operator' } }),
  '/secrets/token': 'file-token\n',
  '/other/run.json': JSON.stringify({ base_url: 'http://127.0.0.1:7002', tokens: { customer: 'other-customer', operator: 'x' } }),
};

function reader() {
  const reads: string[] = [];
  const readFile = (path: string) => {
    reads.push(path);
    if (!(path in files)) throw Object.assign(new Error(`ENOENT: ${path}`), { code: 'ENOENT' });
    return files[path]!;
  };
  return { reads, readFile };
}

t.test('precedence per member, and the files read for it', async (t) => {
  const cases: [string, { baseUrl?: string; tokenFile?: string }, Record<string, string>, string, string, string[]][] = [
    ['flags only', { baseUrl: 'http://127.0.0.1:9000/', tokenFile: '/secrets/token' }, {}, 'http://127.0.0.1:9000', 'file-token', ['/secrets/token']],
    ['env only', {}, { GOV_BASE_URL: 'http://127.0.0.1:9001', GOV_TOKEN: 'env-token' }, 'http://127.0.0.1:9001', 'env-token', []],
    ['flags beat env', { baseUrl: 'http://127.0.0.1:9000', tokenFile: '/secrets/token' }, { GOV_BASE_URL: 'http://127.0.0.1:9001', GOV_TOKEN: 'env-token' }, 'http://127.0.0.1:9000', 'file-token', ['/secrets/token']],
    ['run.json of the data dir', {}, {}, 'http://127.0.0.1:7001', 'run-customer', [RUN]],
    ['url flag, token from run.json', { baseUrl: 'http://127.0.0.1:9000' }, {}, 'http://127.0.0.1:9000', 'run-customer', [RUN]],
    ['a run.json as --token-file gives its URL too', { tokenFile: '/other/run.json' }, {}, 'http://127.0.0.1:7002', 'other-customer', ['/other/run.json']],
    ['GOV_BASE_URL beats the token file URL', { tokenFile: '/other/run.json' }, { GOV_BASE_URL: 'http://127.0.0.1:9001' }, 'http://127.0.0.1:9001', 'other-customer', ['/other/run.json']],
  ];
  for (const [name, options, env, baseUrl, token, expectedReads] of cases) {
    const { reads, readFile } = reader();
    const conn = resolveConnection({ ...options, dataDir: DATA }, env, readFile);
    t.equal(conn.baseUrl, baseUrl, `${name}: base URL`);
    t.equal(conn.token, token, `${name}: token`);
    t.same(reads, expectedReads, `${name}: files read`);
  }
});

t.test('failures name what to do', async (t) => {
  const cases: [string, { baseUrl?: string; tokenFile?: string; dataDir: string }, Record<string, string>, string, RegExp][] = [
    ['nothing anywhere', { dataDir: '/empty' }, {}, 'not_running', /gov preview start.*\/empty\/run\.json/],
    ['unreadable token file', { tokenFile: '/nope', dataDir: DATA }, {}, 'bad_input_file', /Cannot read the token file \/nope \(ENOENT\)/],
    ['not a URL', { baseUrl: 'localhost:7337', dataDir: DATA }, { GOV_TOKEN: 't' }, 'usage_error', /http:\/\/ or https:\/\//],
    ['garbage URL', { baseUrl: '::', dataDir: DATA }, { GOV_TOKEN: 't' }, 'usage_error', /not a URL/],
  ];
  for (const [name, options, env, code, message] of cases) {
    t.throws(() => resolveConnection(options, env, reader().readFile), { code, message }, name);
  }
});

t.test('scope defaults come from GOV_TENANT_ID / GOV_WORKSPACE_ID / GOV_PROJECT_ID', async (t) => {
  t.same(scopeFromEnv({ GOV_TENANT_ID: 'tenant-a', GOV_WORKSPACE_ID: 'ws-1', GOV_PROJECT_ID: 'proj-1', OTHER: 'x' }), { tenant_id: 'tenant-a', workspace_id: 'ws-1', project_id: 'proj-1' });
  t.same(scopeFromEnv({ GOV_TENANT_ID: 'tenant-a', GOV_PROJECT_ID: '' }), { tenant_id: 'tenant-a' });
});

// Every `gov` command with its description, options and an example. A command computes a result;
// render.ts prints it; only main.ts turns the outcome into an exit code.
import { Command } from 'commander';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { AppError } from '../errors.ts';
import { VERSION } from '../version.ts';
import type { CliIo, CommandResult } from './io.ts';
import { render } from './render.ts';

/** What a run leaves for run-cli.ts: the exit code of a command that finished, whether it took --json. */
export type ProgramState = { exitCode: 0 | 1; json?: boolean };

// Command modules load on use: `gov preview start` should not pay for the MCP SDK or the smoke suite.
const preview = () => import('./commands/preview.ts');
const store = () => import('./commands/store.ts');
const hosted = () => import('./commands/hosted.ts');

function examples(...lines: string[]): string {
  return `\nExamples:\n${lines.map((l) => `  $ ${l}`).join('\n')}\n`;
}

/** Commander's `error: unknown command 'x'` as one sentence that says where the usage is. */
export function usageSentence(text: string): string {
  const said = oneLine(text.replace(/^error:\s*/i, '')).replace(/[.;]$/, '');
  return `${said}; see --help for the usage and examples.`;
}

export function createProgram(io: CliIo, state: ProgramState): Command {
  const program = new Command('gov')
    .description('gov — governance backend for AI-agent work (local-first preview; hosted service: gov serve)')
    .version(VERSION)
    .exitOverride()
    .addHelpText('after', examples(
      'npx gov preview start            # the local preview on 127.0.0.1:7337, until Ctrl-C',
      'gov smoke                        # every route once against a throw-away preview',
      'gov events verify                # the log and its index, read-only',
      'gov serve --help                 # the hosted service on PostgreSQL',
    ))
    // What commander refuses is said as the CLI's other errors are: one sentence on stderr that says
    // what to do (docs/contract.md §1), not commander's "error: …" and a second line.
    .configureOutput({ writeOut: io.stdout, writeErr: io.stderr, outputError: (text, write) => write(`gov: ${usageSentence(text)}\n`) })
    // A command that fails prints an error document with --json (run-cli.ts): note whether it took it.
    .hook('preAction', (_program, command) => {
      state.json = command.opts().json === true;
    });
  const finish = (result: CommandResult, json: boolean | undefined) => {
    render(result, json === true, io);
    state.exitCode = result.exitCode;
  };

  const previewCmd = program.command('preview').description('run the local preview server (loopback only)')
    .addHelpText('after', examples('npx gov preview start', 'gov preview status --json', 'gov preview stop'));
  previewCmd
    .command('start')
    .description('start the preview in the foreground; prints its base URL and credentials file, then one access line per request')
    .option('--port <n>', 'port to listen on (0 takes a free port)', '7337')
    .option('--host <addr>', 'loopback address to bind: 127.0.0.1 or ::1', '127.0.0.1')
    .option('--data-dir <dir>', 'data dir (default .gov-preview/ or $GOV_DATA_DIR)')
    .option('--config <file>', 'preview configuration JSON ({"quota": {...}})')
    .option('--forge-data <file>', 'forge data set to load for the quota routes')
    .option('--json', 'print one JSON line {base_url, data_dir, run_file, pid} once listening')
    .addHelpText('after', examples('npx gov preview start', 'gov preview start --port 0 --data-dir /tmp/gov --json'))
    .action(async (opts) => {
      const result = await (await preview()).previewStart(opts, io);
      state.exitCode = result.exitCode;
    });
  previewCmd
    .command('status')
    .description('show whether a preview is running for the data dir, with its event count')
    .option('--data-dir <dir>', 'data dir (default .gov-preview/ or $GOV_DATA_DIR)')
    .option('--json', 'machine output')
    .addHelpText('after', examples('gov preview status', 'gov preview status --json'))
    .action(async (opts) => finish(await (await preview()).previewStatus(opts, io), opts.json));
  previewCmd
    .command('stop')
    .description('stop the preview running for the data dir (SIGTERM; it finishes in-flight requests)')
    .option('--data-dir <dir>', 'data dir (default .gov-preview/ or $GOV_DATA_DIR)')
    .option('--json', 'machine output')
    .addHelpText('after', examples('gov preview stop'))
    .action(async (opts) => finish(await (await preview()).previewStop(opts, io), opts.json));

  program
    .command('console')
    .description('open the running preview\'s console in the browser, signed in by a one-time link (one use, 60 s; it holds no token)')
    .option('--data-dir <dir>', 'data dir of the running preview (default .gov-preview/ or $GOV_DATA_DIR)')
    .option('--no-open', 'print the link without opening a browser')
    .option('--json', 'print {url, expires_at}')
    .addHelpText('after', examples('npx gov console', 'gov console --no-open', 'gov console --data-dir /tmp/gov --json --no-open'))
    .action(async (opts) => finish(await (await import('./commands/console.ts')).consoleCommand(opts, io), opts.json));

  program
    .command('events')
    .description('event log tools')
    .addHelpText('after', examples('gov events verify', 'gov events verify --data-dir /tmp/gov --json'))
    .command('verify')
    .description('check the event log (every line a whole event envelope, seq gapless, hash chain recomputes, no torn tail) and the index beside it, read-only (integrity_check, every row byte for byte with the log, its meta); exit 1 with the first bad seq and byte, the index\'s first bad seq and column, or the byte start-up would cut from; exit 2 when the data dir does not exist, 3 when it holds no log')
    .option('--data-dir <dir>', 'data dir (default .gov-preview/ or $GOV_DATA_DIR)')
    .option('--database-url <url>', 'verify a hosted store instead: its PostgreSQL log and head row (or $GOV_DATABASE_URL with --hosted)')
    .option('--hosted', 'verify the hosted store of $GOV_DATABASE_URL')
    .option('--json', 'machine output')
    .addHelpText('after', examples('gov events verify', 'gov events verify --data-dir /tmp/gov --json', 'gov events verify --database-url postgres://gov@127.0.0.1:5432/gov'))
    .action(async (opts) => {
      if (opts.databaseUrl !== undefined || opts.hosted === true) {
        if (opts.dataDir !== undefined) throw new AppError('usage_error', '--data-dir verifies a preview and --database-url a hosted store; give one.');
        return finish(await (await hosted()).eventsVerifyDatabase(opts, io), opts.json);
      }
      return finish((await store()).eventsVerify(opts, io), opts.json);
    });

  program
    .command('serve')
    .description('run the hosted service on PostgreSQL: OIDC bearer tokens, any number of processes on one database (run gov db migrate first; TLS ends at a proxy in front; docs/hosting.md)')
    .option('--database-url <url>', 'the PostgreSQL database (default $GOV_DATABASE_URL)')
    .option('--host <addr>', 'address to bind (0.0.0.0 for every interface)', '127.0.0.1')
    .option('--port <n>', 'port to listen on (0 takes a free port)', '8080')
    .option('--issuer <url>', 'OIDC: the exact iss of accepted tokens (default $GOV_OIDC_ISSUER)')
    .option('--audience <aud>', 'OIDC: the aud accepted tokens carry (default $GOV_OIDC_AUDIENCE)')
    .option('--jwks-url <url>', 'OIDC: the identity provider\'s JWKS URL (default $GOV_OIDC_JWKS_URL)')
    .option('--jwks-file <file>', 'OIDC: a JWKS document on disk instead (default $GOV_OIDC_JWKS_FILE)')
    .option('--algorithms <a,b>', 'allowed JWS algorithms (default RS256,PS256,ES256,EdDSA; never none or HS*)', (v: string) => v.split(','))
    .option('--tenant-claim <name>', 'claim naming the tenant(s) a token grants', 'gov_tenant')
    .option('--workspace-claim <name>', 'claim naming the workspace(s) a token grants (absent: all of its tenants\')', 'gov_workspace')
    .option('--roles-claim <name>', 'claim (or dotted path, e.g. realm_access.roles) holding the team roles', 'gov_roles')
    .option('--operator-role <name>', 'roles-claim value that makes a token the operator transport', 'gov_operator')
    .option('--config <file>', 'configuration JSON ({"quota": {...}}), as gov preview start takes')
    .option('--cache-dir <dir>', 'where this process keeps its index, rebuilt from the database at every start (one directory per process; default: a fresh temporary one)')
    .option('--json', 'print one JSON line {base_url, database, pid, events, issuer} once listening')
    .addHelpText('after', examples(
      'GOV_DATABASE_URL=postgres://gov@db:5432/gov gov serve --host 0.0.0.0 --port 8080 --issuer https://login.example.com/realms/acme --audience gov-api --jwks-url https://login.example.com/realms/acme/protocol/openid-connect/certs',
      'gov serve --database-url postgres://postgres@127.0.0.1:5432/gov --issuer https://idp.test --audience gov --jwks-file jwks.json --port 0 --json',
    ))
    .action(async (opts) => {
      const result = await (await hosted()).serve(opts, io);
      state.exitCode = result.exitCode;
    });

  const dbCmd = program.command('db').description('the hosted store\'s database: schema migrations, importing a preview')
    .addHelpText('after', examples(
      'gov db migrate --database-url postgres://gov@127.0.0.1:5432/gov',
      'gov db import --from-data-dir .gov-preview --database-url postgres://gov@127.0.0.1:5432/gov',
      'gov db rotate-keys --database-url postgres://gov@127.0.0.1:5432/gov',
    ));
  dbCmd
    .command('migrate')
    .description('apply gov\'s schema migrations to the PostgreSQL database (idempotent; two runs at once wait for each other)')
    .option('--database-url <url>', 'the PostgreSQL database (default $GOV_DATABASE_URL)')
    .option('--json', 'machine output')
    .addHelpText('after', examples('gov db migrate --database-url postgres://gov@127.0.0.1:5432/gov'))
    .action(async (opts) => finish(await (await hosted()).dbMigrate(opts, io), opts.json));
  dbCmd
    .command('rotate-keys')
    .description('make a new generation of signing keys (ed25519, ECDSA P-256) the current one; the previous stays served by GET /v1/keys so what it signed still verifies; each gov serve process signs with the new keys from its next start (restart them one by one)')
    .option('--database-url <url>', 'the PostgreSQL database (default $GOV_DATABASE_URL)')
    .option('--json', 'machine output')
    .addHelpText('after', examples('gov db rotate-keys --database-url postgres://gov@127.0.0.1:5432/gov'))
    .action(async (opts) => finish(await (await hosted()).dbRotateKeys(opts, io), opts.json));
  dbCmd
    .command('import')
    .description('copy a preview\'s event log (byte for byte: same seqs, hashes, Merkle root) and its signing keys into an empty hosted store, checking every line as gov events verify does; a bad line stops it with its seq and nothing imported (stop the preview first)')
    .option('--from-data-dir <dir>', 'the preview\'s data dir')
    .option('--database-url <url>', 'the PostgreSQL database, migrated and empty (default $GOV_DATABASE_URL)')
    .option('--json', 'machine output')
    .addHelpText('after', examples('gov db import --from-data-dir .gov-preview --database-url postgres://gov@127.0.0.1:5432/gov'))
    .action(async (opts) => finish(await (await hosted()).dbImport(opts, io), opts.json));

  program
    .command('store')
    .description('local store tools')
    .addHelpText('after', examples('gov store rebuild-index --data-dir /tmp/gov'))
    .command('rebuild-index')
    .description('rebuild the SQLite index from the event log (the preview must be stopped); a log line that fails its checks (seq, prev_hash, event_hash) or a log that lost events the index holds is refused (exit 3), the index kept')
    .option('--data-dir <dir>', 'data dir (default .gov-preview/ or $GOV_DATA_DIR)')
    .option('--accept-loss', 'rebuild even though the old index holds events past the log\'s end (the log was cut back): they are gone for good. A damaged or missing line is never rebuilt past: restore the log from a backup')
    .option('--json', 'machine output')
    .addHelpText('after', examples('gov store rebuild-index --data-dir /tmp/gov', 'gov store rebuild-index --data-dir /tmp/gov --accept-loss   # the log was cut back on purpose'))
    .action(async (opts) => finish(await (await store()).storeRebuildIndex(opts, io), opts.json));

  program
    .command('packet')
    .description('Proof Packet tools')
    .addHelpText('after', examples('gov packet verify packet.json', 'gov packet verify packet.json --keys keys.json --json'))
    .command('verify')
    .description('verify a Proof Packet: hash, signature, hash chain, receipt; offline with --keys, else online against a preview')
    .argument('<file>', 'the packet JSON (as POST or GET /v1/proof-packets answered it)')
    .option('--keys <file>', 'offline: the public keys (GET /v1/keys answer)')
    .option('--timeline <file>', 'offline: a task timeline (GET /v1/tasks/{id}/timeline answer); repeat per task; without it the hash chain is skipped, not failed; a file that is no timeline is exit 2', (v: string, all: string[] = []) => [...all, v])
    .option('--receipt <file>', 'offline: the receipt (GET /v1/receipts/{id} answer) of a receipted packet; without it the receipt is skipped, not failed; a file that is no receipt is exit 2')
    .option('--base-url <url>', 'online: the preview to ask (default: run.json of the data dir, or $GOV_BASE_URL)')
    .option('--token-file <file>', 'online: a file holding the token, or a run.json')
    .option('--data-dir <dir>', 'online: data dir whose run.json gives URL and token (default .gov-preview/)')
    .option('--json', 'machine output')
    .addHelpText('after', '\nExit 0: every check given passes and the packet is current; 1: a check fails, or the packet is\nnot current (revoked in the file or at the preview, or not its latest issue); 2: a bad file or\nusage; 3: the preview could not be asked.')
    .addHelpText('after', examples(
      'gov packet verify packet.json --keys keys.json --timeline timeline.json --receipt receipt.json',
      'gov packet verify packet.json --base-url http://127.0.0.1:7337 --token-file .gov-preview/run.json --json',
    ))
    .action(async (file, opts) => finish(await (await import('./commands/packet-verify.ts')).packetVerify(file, opts, io), opts.json));

  program
    .command('export')
    .description("export one kind of a scope's governance records from a running preview (GET /v1/exports/{kind}) to a file, checking its export_sha256")
    .argument('<kind>', 'assets, risk, approvals, incidents, posture, vendors, reviews, access-log or evidence-manifest')
    .option('--as-of <time>', 'RFC 3339 instant the export is as of (default now); the same as_of gives the same bytes')
    .option('--format <format>', 'json (one canonical document) or jsonl (a header line, then one line per record)', 'json')
    .option('--out <file>', 'where to write it (default export-<kind>.<format> in the current directory)')
    .option('--base-url <url>', 'the preview to ask (default $GOV_BASE_URL, else run.json of the data dir)')
    .option('--token-file <file>', 'a file holding the token, or a run.json')
    .option('--data-dir <dir>', 'data dir whose run.json gives URL and token (default .gov-preview/ or $GOV_DATA_DIR)')
    .option('--tenant-id <id>', 'scope: tenant (default $GOV_TENANT_ID)')
    .option('--workspace-id <id>', 'scope: workspace (default $GOV_WORKSPACE_ID)')
    .option('--project-id <id>', 'scope: project (default $GOV_PROJECT_ID)')
    .option('--json', 'machine output')
    .addHelpText('after', examples(
      'gov export assets --tenant-id acme --workspace-id platform --project-id billing',
      'gov export access-log --format jsonl --as-of 2026-11-01T10:00:00Z --out access.jsonl --base-url http://127.0.0.1:7337 --token-file .gov-preview/run.json --tenant-id acme --workspace-id ws-1 --project-id proj-1 --json',
    ))
    .action(async (kind, opts) => finish(await (await import('./commands/export.ts')).exportCommand(kind, opts, io), opts.json));

  program
    .command('mcp')
    .description('the agent tool front door: an MCP server on stdio that calls the HTTP API only (access_policy=api_only_no_local_fallback)')
    .option('--base-url <url>', 'the API to call (default $GOV_BASE_URL, else run.json of the data dir)')
    .option('--token-file <file>', 'a file holding the token, or a run.json (its customer token; default $GOV_TOKEN, else run.json of the data dir)')
    .option('--data-dir <dir>', 'data dir whose run.json gives URL and token; nothing else in it is read (default .gov-preview/ or $GOV_DATA_DIR)')
    .addHelpText('after', examples('gov mcp', 'GOV_TENANT_ID=acme GOV_WORKSPACE_ID=ws-1 GOV_PROJECT_ID=proj-1 gov mcp --base-url http://127.0.0.1:7337 --token-file .gov-preview/run.json'))
    .action(async (opts) => {
      state.exitCode = await (await import('./commands/mcp.ts')).mcpServe(opts, io);
    });

  program
    .command('quota')
    .description('forge quota tools')
    .addHelpText('after', examples('gov quota eval --groups policy.json --usage usage.json', 'gov quota eval --groups policy.json --usage usage.json --json'))
    .command('eval')
    .description('dry-run the forge quota engine: per owner, overall standing and standing per subject with the deciding group, rule, sum and limit; exit 1 when any owner is over quota')
    .requiredOption('--groups <file>', 'POLICY.json: rules, groups, assignments, default_groups, default_total (the admin API\'s shapes)')
    .requiredOption('--usage <file>', 'USAGE.json: a forge data set, or {"<owner>": <used>} in Forgejo\'s used shape')
    .option('--user <name>', 'evaluate only this user (case-insensitive; zero usage when absent from USAGE.json)')
    .option('--subject <subject>', 'evaluate only this subject, as /user/quota/check does (e.g. size:git:lfs)')
    .option('--default-groups <a,b>', 'default group names, comma-separated (replaces the policy\'s and app.ini\'s)', (v: string) => v.split(','))
    .option('--app-ini <file>', 'a Forgejo app.ini: [quota] ENABLED, DEFAULT_GROUPS, [quota.default] TOTAL replace the policy\'s settings')
    .option('--json', 'print the result as one JSON document')
    .addHelpText('after', examples(
      'gov quota eval --groups fixtures/quota/policy.json --usage fixtures/quota/usage.json',
      'gov quota eval --groups policy.json --usage forge.json --user alice --subject size:git:lfs --json',
      'gov quota eval --groups policy.json --usage usage.json --app-ini /etc/forgejo/app.ini',
    ))
    .action(async (opts) => {
      const { quotaEvalExitCode, renderQuotaEval, runQuotaEval } = await import('./commands/quota-eval.ts');
      const result = runQuotaEval(opts, (path) => readFileSync(resolve(io.cwd, path), 'utf8'));
      finish({ exitCode: quotaEvalExitCode(result), json: result, text: opts.json ? '' : renderQuotaEval(result) }, opts.json);
    });

  program
    .command('smoke')
    .description('run the smoke suite: a happy-path call per listed route (body validated against the server\'s own /openapi.json), negative calls, quota evaluation cases; starts a throw-away preview unless --base-url is given, where it leaves the user\'s data alone; exit 1 on any failure')
    .option('--base-url <url>', 'smoke a running server instead of a throw-away preview')
    .option('--token-file <file>', 'its run.json (both tokens), or a file holding only the customer token (operator checks are then skipped)')
    .option('--read-only', 'against --base-url: reads and shape checks only, no write request at all')
    .option('--allow-forge-writes', 'against --base-url: also write the forge quota rules, groups and data set (restored at the end); by default smoke writes only in its own smoke-<run id> tenants')
    .option('--grep <pattern>', 'run only the checks whose name matches this regular expression (case-insensitive)')
    .option('--run-id <hex8>', 'the run id naming its tenants smoke-<id>, -b, -c (default: random); lets a hosted token be minted for them first')
    .option('--json', 'print one report {passed, failed, skipped, checks:[{name, route, status, detail}], run_id, writes}')
    .addHelpText('after', examples(
      'gov smoke',
      'gov smoke --base-url http://127.0.0.1:7337 --token-file .gov-preview/run.json',
      'gov smoke --base-url http://127.0.0.1:7337 --token-file .gov-preview/run.json --read-only',
      'gov smoke --base-url http://127.0.0.1:7337 --token-file .gov-preview/run.json --allow-forge-writes',
      'gov smoke --grep "tasks|search" --json',
    ))
    .action(async (opts) => finish(await (await import('./commands/smoke.ts')).smokeCommand(opts, io), opts.json));

  return program;
}

/** Lines joined by one space, each trimmed: commander's wrapped message on one line. */
function oneLine(text: string): string {
  return text.split('\n').map((line) => line.trim()).filter((line) => line !== '').join(' ');
}

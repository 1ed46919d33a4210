// `gov console` against a real started preview: --json --no-open prints {url, expires_at} whose URL
// signs a browser in (a 303 with the session cookie, which then reads the API); the text form
// prints the link and no token; no running preview is a clear not_running. `gov preview start`
// prints a sign-in line of its own, and the opener is the system's.
import t, { type Test } from 'tap';
import { runCli } from '../../src/cli/run-cli.ts';
import type { CliIo } from '../../src/cli/io.ts';
import { openerFor } from '../../src/cli/commands/console.ts';
import { previewStart } from '../../src/cli/commands/preview.ts';
import { inProcessPreview } from '../fixtures/served-app.ts';
import { tempDir } from '../fixtures/test-app.ts';

function capture(cwd: string, env: NodeJS.ProcessEnv = {}) {
  const out = { stdout: '', stderr: '' };
  let stop: (() => void) | null = null;
  const io: CliIo = {
    stdout: (s) => void (out.stdout += s),
    stderr: (s) => void (out.stderr += s),
    env,
    cwd,
    isTty: false,
    onStopSignal: (handler) => void (stop = handler),
  };
  return { io, out, stop: () => stop?.() };
}

/** Follows a sign-in link as a browser starts it; the Cookie header it would then send. */
async function signIn(t: Test, url: string): Promise<string> {
  const res = await fetch(url, { redirect: 'manual' });
  t.equal(res.status, 303, 'the link signs in');
  t.equal(res.headers.get('location'), '/console');
  const cookies = res.headers.getSetCookie().map((c) => c.split(';')[0]!);
  t.ok(cookies.some((c) => c.startsWith('gov_session=')), 'with the session cookie');
  return cookies.join('; ');
}

t.test('gov console --json --no-open prints a URL that signs in', async (t) => {
  const dir = tempDir(t);
  const preview = await inProcessPreview(t, dir);
  const { io, out } = capture(dir);
  const code = await runCli(['console', '--json', '--no-open', '--data-dir', dir], io);
  t.equal(code, 0, out.stderr);
  const printed = JSON.parse(out.stdout) as { url: string; expires_at: string };
  t.same(Object.keys(printed).sort(), ['expires_at', 'url'], 'one document: {url, expires_at}');
  t.match(printed.url, new RegExp(`^${preview.baseUrl.replace(/\./g, '\\.')}/console/login\\?code=[A-Za-z0-9_-]{43}$`), 'a sign-in link of this preview');
  const ttl = Date.parse(printed.expires_at) - Date.now();
  t.ok(ttl > 0 && ttl <= 60_000, 'good for at most 60 s');
  for (const [name, token] of Object.entries(preview.tokens)) t.notOk(out.stdout.includes(token) || out.stderr.includes(token), `no ${name} token printed`);

  const cookie = await signIn(t, printed.url);
  const read = await fetch(`${preview.baseUrl}/v1/templates`, { headers: { Cookie: cookie } });
  t.equal(read.status, 200, 'the session reads the API');
  t.equal((await fetch(printed.url, { redirect: 'manual' })).status, 401, 'the link works once');

  // Found by GOV_DATA_DIR as well; the text form prints the link.
  const byEnv = capture(tempDir(t), { GOV_DATA_DIR: dir });
  t.equal(await runCli(['console', '--no-open'], byEnv.io), 0, byEnv.out.stderr);
  t.match(byEnv.out.stdout, /^Console sign-in link \(one use, within 60 s; run npx gov console again for a fresh one\):\n {2}http:\/\/127\.0\.0\.1:\d+\/console\/login\?code=[A-Za-z0-9_-]{43}\n$/);
  for (const token of Object.values(preview.tokens)) t.notOk(byEnv.out.stdout.includes(token));
});

t.test('no running preview: not_running, exit 3, with a clear message', async (t) => {
  const dir = tempDir(t);
  const { io, out } = capture(dir);
  t.equal(await runCli(['console', '--json', '--no-open', '--data-dir', dir], io), 3);
  t.match(JSON.parse(out.stdout), { ok: false, code: 'not_running' });
  t.match(out.stderr, /No preview is running for .*gov preview start/);
});

t.test('--help shows examples; the opener is the system\'s', async (t) => {
  const { io, out } = capture(process.cwd());
  t.equal(await runCli(['console', '--help'], io), 0);
  t.match(out.stdout, /--no-open/);
  t.match(out.stdout, /Examples:\n {2}\$ npx gov console\n/);
  t.same(openerFor('linux', 'http://x/'), ['xdg-open', ['http://x/']]);
  t.same(openerFor('darwin', 'http://x/'), ['open', ['http://x/']]);
  t.same(openerFor('win32', 'http://x/?a=1&b=2'), ['cmd', ['/c', 'start', '""', 'http://x/?a=1^&b=2']]);
});

t.test('gov preview start prints where the console is and how to sign in, never a sign-in code', async (t) => {
  const dir = tempDir(t);
  const run = capture(dir);
  const started = previewStart({ port: '0', dataDir: dir }, run.io);
  await new Promise<void>((resolve) => {
    const wait = () => (run.out.stdout.includes('Press Ctrl-C') ? resolve() : setTimeout(wait, 20));
    wait();
  });
  const line = /^ {2}console: {5}(http:\/\/127\.0\.0\.1:\d+\/console) \(sign in: npx gov console, in another terminal\)$/m.exec(run.out.stdout);
  t.ok(line, `a console line: ${run.out.stdout}`);
  t.notMatch(run.out.stdout, /code=|login/, 'no sign-in code: a log of the output holds no credential');
  t.equal((await fetch(line![1]!)).status, 200, 'the console page it names answers');
  run.stop();
  t.equal((await started).exitCode, 0);

  const json = capture(dir);
  const again = previewStart({ port: '0', dataDir: dir, json: true }, json.io);
  await new Promise<void>((resolve) => {
    const wait = () => (json.out.stdout.includes('\n') ? resolve() : setTimeout(wait, 20));
    wait();
  });
  t.same(Object.keys(JSON.parse(json.out.stdout)).sort(), ['base_url', 'data_dir', 'pid', 'run_file'], '--json: one document, unchanged');
  t.notMatch(json.out.stdout, /console\/login/);
  json.stop();
  await again;
});

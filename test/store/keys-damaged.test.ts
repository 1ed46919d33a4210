// A damaged key file stops the start with one sentence naming the file and what to do (exit 3
// store_corrupt), and lets go of the data dir: the store it had opened is closed again (its lock
// and its index writer's thread kept the process alive before, holding the lock, with a stack
// trace and internal_error).
import t from 'tap';
import { readFileSync, writeFileSync } from 'node:fs';
import { keyFilesOf } from '../../src/store/keys.ts';
import { tempDir, testApp } from '../fixtures/test-app.ts';

t.test('a key file that is no key: store_corrupt naming it; the data dir is free again', async (t) => {
  const dataDir = tempDir(t);
  const first = await testApp(t, { dataDir });
  await first.close();
  const { ecdsa } = keyFilesOf(dataDir);
  const good = readFileSync(ecdsa, 'utf8');
  writeFileSync(ecdsa, 'garbage\n');
  await t.rejects(testApp(t, { dataDir }), {
    code: 'store_corrupt',
    message: new RegExp(`The key file ${ecdsa.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')} is not a private key this preview can read .* Restore it from a backup .* move that directory away`),
  });
  writeFileSync(ecdsa, good);
  const again = await testApp(t, { dataDir });
  t.equal((await again.call('/v1/keys', { scope: null })).status, 200, 'the lock was released: the next start opens the data dir');
});

t.test('keys missing beside a log with events: new keys, and a warning that old signatures no longer verify', async (t) => {
  const { rmSync } = await import('node:fs');
  const { join } = await import('node:path');
  const dataDir = tempDir(t);
  const first = await testApp(t, { dataDir });
  t.equal((await first.call('/v1/tasks', { body: { task_id: 'task-k', title: 'A task the old keys could sign', session_id: 's-1' } })).status, 201);
  const before = (await first.call('/v1/keys', { scope: null })).json;
  await first.close();
  rmSync(join(dataDir, 'keys'), { recursive: true });
  const warnings: string[] = [];
  const again = await testApp(t, { dataDir, warn: (m) => warnings.push(m) });
  t.match(warnings.join('\n'), /keys held no signing key although the log has \d+ events: new keys were made\. Packets, attestations and receipts signed with the old keys no longer verify/);
  t.not(JSON.stringify((await again.call('/v1/keys', { scope: null })).json), JSON.stringify(before), 'new keys');
  await again.close();
  const quiet: string[] = [];
  await testApp(t, { dataDir, warn: (m) => quiet.push(m) });
  t.notMatch(quiet.join('\n'), /held no signing key/, 'a start with its keys says nothing');
});

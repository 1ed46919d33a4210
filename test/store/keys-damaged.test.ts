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

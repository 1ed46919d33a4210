// Writes a large data dir fast, in-process, through the real store API (openStore + append, so the
// log, hash chain and index are exactly what the preview would have written), in big concurrent
// batches that the group commit turns into one write + fsync + index transaction each.
import { createHash } from 'node:crypto';
import type { PendingEvent } from '../../src/store/event-log.ts';
import { openStore } from '../../src/store/store.ts';
import { BENCH_SCOPE } from './sections/appends.ts';

export const COMMON_TERM = 'deployment';
export const RARE_TERM = 'zebracorn';
/** One event in RARE_EVERY carries the rare term; nine in ten carry the common one. */
export const RARE_EVERY = 1_000;
const OTHER_SCOPE = { tenant_id: 'other-tenant', workspace_id: 'other-ws', project_id: 'other-proj' };

const VOCABULARY = Array.from({ length: 2_000 }, (_, i) => `w${(i * 2654435761 % 4294967296).toString(36)}`);

/** mulberry32: a seeded PRNG, so every run writes the same texts. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function eventAt(i: number, random: () => number): PendingEvent {
  const words: string[] = [];
  const n = 10 + Math.floor(random() * 15);
  for (let w = 0; w < n; w++) words.push(VOCABULARY[Math.floor(random() * VOCABULARY.length)]!);
  if (i % 10 !== 0) words.splice(Math.floor(random() * words.length), 0, COMMON_TERM);
  if (i % RARE_EVERY === 7) words.push(RARE_TERM);
  // One event in twenty belongs to another tenant, so the scope filter has rows to skip.
  const scope = i % 20 === 19 ? OTHER_SCOPE : BENCH_SCOPE;
  const key = `seed-${i}`;
  return {
    ...scope,
    kind: i % 3 === 0 ? 'ext.bench.build' : 'ext.bench.note',
    session_id: `sess-${i % 50}`,
    payload: { text: words.join(' '), step: i },
    event_id: `evt_seed_${i.toString().padStart(7, '0')}`,
    transport: 'customer',
    idempotency_key: key,
    request_sha256: `sha256:${createHash('sha256').update(key).digest('hex')}`,
  };
}

export async function seedStore(dataDir: string, count: number, progress: (m: string) => void, batch = 5_000): Promise<{ seconds: number }> {
  const started = performance.now();
  const store = await openStore({ dataDir, clock: () => new Date(), warn: (m) => progress(`warning: ${m}`) });
  const random = prng(20_261_101);
  try {
    for (let from = 0; from < count; from += batch) {
      const units: PendingEvent[][] = [];
      for (let i = from; i < Math.min(count, from + batch); i++) units.push([eventAt(i, random)]);
      await Promise.all(units.map((unit) => store.append(unit)));
      if ((from + batch) % 20_000 === 0) progress(`  seeded ${from + batch} events`);
    }
  } finally {
    await store.close();
  }
  return { seconds: (performance.now() - started) / 1000 };
}

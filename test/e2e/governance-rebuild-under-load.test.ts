// Governance writes sent at once, of every kind, against a real preview; then every read answer of
// the projections as the index writer kept them, batch by batch under that load, must equal the
// answer after `gov store rebuild-index` folded the same log afresh, and `gov events verify` must
// pass. Each answer is compared whole (ETags included); only the instants a read stamps (`as_of`)
// and the seq a dashboard was read at are left out. Concurrency makes each run's interleaving its
// own; the property holds for every one of them.
import t from 'tap';
import { tempDir } from '../fixtures/test-app.ts';
import { runGov, scopeHeaders, spawnPreview, type RunningPreview } from '../fixtures/spawn-preview.ts';

const SCOPE = { tenant_id: 't-load', workspace_id: 'w-load', project_id: 'p-load' };
const ASSETS = Array.from({ length: 8 }, (_, i) => `asset-${i}`);
const VENDORS = ['vendor-0', 'vendor-1', 'vendor-2'];
const TASKS = ['task-0', 'task-1', 'task-2'];
/** DOMAIN.md §2.5's golden vectors: minimal, limited and high tiers, so approvals of one and two steps. */
const GOLDEN = [[1, 0, 1, 3, 0], [1, 1, 1, 0, 0], [2, 2, 2, 3, 0], [3, 3, 2, 2, 0], [0, 4, 1, 4, 0], [3, 4, 4, 3, 0]];
const WRITERS = 24;
const OPERATIONS = 1_200;

const user = (id: string) => ({ type: 'user', id });
const inputs = (g: number[]) => ({ data_sensitivity: g[0], decision_impact: g[1], autonomy: g[2], vendor_maturity: g[3], prohibited_practice: g[4] });
const asset = (id: string, revision: number) => ({
  asset_id: id, name: `Assistant ${id}`, purpose: `Rank applications, revision ${revision}`, owner: user('olivia'),
  deployment_context: 'HR, internal', models: [{ provider: 'acme', name: 'rank-1' }], actor: user('raj'),
});

/** mulberry32: the operations drawn replay from the seed (their interleaving is the machine's). */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let x = Math.imul(a ^ (a >>> 15), a | 1);
    x ^= x + Math.imul(x ^ (x >>> 7), x | 61);
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

function client(p: RunningPreview) {
  return async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${p.baseUrl}${path}`, {
      method,
      headers: { Authorization: `Bearer ${p.tokens.customer}`, ...scopeHeaders(SCOPE), ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    return { status: res.status, etag: res.headers.get('etag'), json: JSON.parse(text) as Record<string, any> };
  };
}

t.test('projections kept under concurrent governance writes equal a rebuild of the same log', async (t) => {
  t.setTimeout(150_000);
  const dataDir = tempDir(t);
  let preview = await spawnPreview(dataDir);
  t.teardown(() => preview.child.kill('SIGKILL'));
  let call = client(preview);
  const ok = async (what: string, r: Promise<{ status: number; json: Record<string, any> }>) => {
    const res = await r;
    if (res.status !== 200 && res.status !== 201) throw new Error(`${what}: ${res.status} ${JSON.stringify(res.json).slice(0, 300)}`);
    return res;
  };

  await ok('owner', call('POST', '/v1/team/owner', { actor: user('olivia') }));
  for (const [who, role] of [['rita', 'governance_reviewer'], ['rob', 'governance_reviewer'], ['evan', 'accountable_executive']] as const) {
    const invite = await ok('invite', call('POST', '/v1/team/invites', { email: `${who}@example.com`, role, actor: user('olivia') }));
    await ok('accept', call('POST', `/v1/team/invites/${invite.json.invite_id}/accept`, { token: invite.json.token, actor: user(who) }));
  }
  for (const id of ASSETS) await ok('register', call('POST', '/v1/governance/assets', asset(id, 0)));
  for (const id of TASKS) await ok('task', call('POST', '/v1/tasks', { task_id: id, title: `Evidence for the assets: ${id}`, session_id: 'sess-load' }));

  const rnd = random(20261202);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(rnd() * list.length)]!;
  const approvals = new Set<string>();
  const statuses: Record<string, number> = {};
  const tally = (op: string, r: { status: number; json: Record<string, any> }) => {
    const key = `${op} ${r.status}${r.status >= 400 ? ` ${r.json.code}` : ''}`;
    statuses[key] = (statuses[key] ?? 0) + 1;
  };
  const operations: Array<(n: number) => Promise<void>> = [
    async () => {
      const r = await call('POST', '/v1/risk/evaluations', { asset_id: pick(ASSETS), risk_inputs: inputs(pick(GOLDEN)), actor: user('raj') });
      tally('evaluate', r);
      if (r.status === 201 && r.json.evaluation.approval_id !== null) approvals.add(r.json.evaluation.approval_id);
    },
    async (n) => {
      if (approvals.size === 0) return;
      const id = pick([...approvals]);
      const a = await call('GET', `/v1/approvals/${id}`);
      if (a.json.status !== 'pending') return;
      const step = a.json.current_step as number;
      tally('decide', await call('POST', `/v1/approvals/${id}/decision`, { step, decision: rnd() < 0.85 ? 'approve' : 'reject', reason: `Decision ${n} under load`, actor: user(step === 1 ? pick(['rita', 'rob']) : 'evan') }));
    },
    async (n) => tally('revise', await call('POST', '/v1/governance/assets', asset(pick(ASSETS), n))),
    async (n) => {
      const reviews = await call('GET', `/v1/reviews?asset_id=${pick(ASSETS)}`);
      const review = reviews.json.reviews?.[0];
      if (review) tally('review', await call('POST', `/v1/reviews/${review.review_id}/complete`, { outcome: 'no_change', notes: `Review ${n} under load`, actor: user(pick(['rita', 'rob'])) }));
    },
    async (n) => tally('incident', await call('POST', '/v1/incidents', {
      class: pick(['incident', 'hazard']), title: `Incident ${n}`, description: 'The ranking output skewed for one group.', aware_at: '2026-12-01T10:00:00.000Z',
      severity: pick(['sev1', 'sev2', 'sev3', 'sev4']), asset_ids: [pick(ASSETS)], actor: user('rita'),
    })),
    async () => tally('vendor', await call('POST', '/v1/vendors', { vendor_id: pick(VENDORS), name: 'Acme AI', answers: [{ question_id: 'VQ-01', value: 'listed_with_versions' }], assessed_for_asset_ids: [pick(ASSETS)], actor: user('rita') })),
    async (n) => tally('checkpoint', await call('POST', `/v1/tasks/${pick(TASKS)}/checkpoints`, {
      progress: `Ran the checks of step ${n}`,
      evidence_refs: [{ artifact_id: `art-${n % 6}`, uri: `https://ci.example.test/runs/${n % 6}`, evidence_type: 'log', sha256: 'a'.repeat(64), confidence: 'claimed', redaction: 'none', content_trust: 'trusted_internal', captured_at: '2026-11-01T09:00:00Z' }],
    })),
    async (n) => {
      const accept = rnd() < 0.5;
      tally('evidence review', await call('POST', `/v1/evidence/art-${n % 6}/review`, { decision: accept ? 'accept' : 'reject', ...(accept ? { content_trust: 'trusted_internal' } : {}), reason: `Read run ${n % 6}`, actor: user('rita') }));
    },
  ];
  let next = 0;
  await Promise.all(Array.from({ length: WRITERS }, async () => {
    while (next < OPERATIONS) {
      const n = next++;
      await pick(operations)(n);
    }
  }));
  // A race explains: a decision of a step another decision moved on (by its own decider: SOD-4 comes
  // before the step check), of an approval a new evaluation superseded; a review of a cycle just
  // completed; evidence reviewed before a checkpoint attached it.
  const unexpected = Object.entries(statuses).filter(([key]) => / 5\d\d/.test(key) || / 4\d\d /.test(key) && !/ 409 (approval_superseded|approval_not_pending|step_mismatch|one_person_one_step|review_cycle_stale|write_conflict)$/.test(key) && !/^evidence review 404 not_found_in_scope$/.test(key));
  t.same(unexpected, [], `only the refusals a race explains: ${JSON.stringify(statuses)}`);
  t.ok(['evaluate 201', 'decide 201', 'review 201', 'incident 201', 'vendor 201', 'checkpoint 201', 'evidence review 201'].every((key) => (statuses[key] ?? 0) > 0), 'every kind of write landed');

  const asOf = new Date(Date.now() + 5).toISOString();
  await new Promise((resolve) => setTimeout(resolve, 20));
  const pages = async (path: string, member: string) => {
    const out: unknown[] = [];
    let cursor: string | null = null;
    do {
      const r = await ok(path, call('GET', `${path}${path.includes('?') ? '&' : '?'}limit=50${cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`}`));
      out.push(...(r.json[member] as unknown[]));
      cursor = r.json.next_cursor as string | null;
    } while (cursor !== null);
    return out;
  };
  const snapshot = async () => {
    const s: Record<string, unknown> = { assets: await pages('/v1/governance/assets', 'assets'), approvals: await pages('/v1/approvals', 'approvals'), reviews: await pages('/v1/reviews', 'reviews') };
    for (const id of ASSETS) {
      s[`asset ${id}`] = await call('GET', `/v1/governance/assets/${id}`);
      s[`risk ${id}`] = await call('GET', `/v1/governance/assets/${id}/risk`);
      s[`evidence ${id}`] = await call('GET', `/v1/governance/assets/${id}/evidence`);
    }
    for (const id of [...approvals].sort()) s[`approval ${id}`] = await call('GET', `/v1/approvals/${id}`);
    for (const id of VENDORS) s[`vendor ${id}`] = await call('GET', `/v1/vendors/${id}`);
    for (const id of TASKS) s[`task ${id}`] = await call('GET', `/v1/tasks/${id}`);
    s.incidents = await call('GET', '/v1/incidents');
    s.team = await call('GET', '/v1/team');
    s.dashboard = await call('GET', '/v1/governance/dashboard');
    for (const kind of ['assets', 'risk', 'approvals', 'incidents', 'vendors', 'reviews', 'evidence-manifest']) s[`export ${kind}`] = await call('GET', `/v1/exports/${kind}?as_of=${encodeURIComponent(asOf)}`);
    return JSON.parse(JSON.stringify(s, (key, value: unknown) => (key === 'as_of' || key === 'last_seq' ? undefined : value))) as Record<string, unknown>;
  };
  const kept = await snapshot();

  preview.child.kill('SIGTERM');
  t.equal((await preview.exited).code, 0, 'the preview stops cleanly');
  const rebuilt = await runGov(['store', 'rebuild-index', '--data-dir', dataDir, '--json']);
  t.equal(rebuilt.code, 0, rebuilt.stderr);
  preview = await spawnPreview(dataDir);
  call = client(preview);
  const fresh = await snapshot();
  t.same(Object.keys(fresh), Object.keys(kept));
  for (const key of Object.keys(kept)) t.same(fresh[key], kept[key], `${key}: the same answer after the rebuild`);

  preview.child.kill('SIGTERM');
  await preview.exited;
  const verify = await runGov(['events', 'verify', '--data-dir', dataDir]);
  t.equal(verify.code, 0, verify.stdout + verify.stderr);
});

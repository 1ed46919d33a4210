// The governance requests the risk and registry sections send, as an integrator registering its AI
// assets and asking for their risk evaluations would: every write keyed and carrying an actor, each
// asset with its own name, purpose and models. The evaluation inputs need an approval (tier high,
// two steps), so every evaluation appends risk.evaluated + approval.requested + access.logged in one
// unit, and supersedes the asset's previous evaluation and its pending approval.
import { runLoad, type HttpClient, type LoadResult, type Send } from './http-load.ts';

/** gov.risk.default: 31 points, tier high, an approval of two steps (docs/governance/risk.md). */
export const HIGH_INPUTS = { data_sensitivity: 3, decision_impact: 3, autonomy: 2, vendor_maturity: 2, prohibited_practice: 0 } as const;
const REQUESTER = { type: 'user', id: 'requester-bench-1' } as const;

const TEAMS = ['HR', 'finance', 'support', 'legal', 'sales', 'engineering', 'marketing', 'security'];
const PURPOSES = ['Rank job applications', 'Summarise support tickets', 'Flag unusual expense claims', 'Draft replies to customer email', 'Classify contract clauses', 'Suggest code changes in review',
  'Score inbound leads', 'Triage security alerts', 'Translate product documentation', 'Detect duplicate invoices'];
const PROVIDERS = [['acme', 'rank-1'], ['openweights', 'ow-13b'], ['vendor-x', 'summarise-2'], ['in-house', 'clf-7'], ['acme', 'chat-4']] as const;

/** Asset n of a prefix; zero-padded so the cursor order (asset_id) is the numeric order. */
export function assetId(prefix: string, n: number): string {
  return `${prefix}-${String(n).padStart(5, '0')}`;
}

function pick<T>(list: readonly T[], i: number): T {
  return list[i % list.length]!;
}

/** POST /v1/governance/assets for asset `id` (the n-th of its run, for varied text). Answers 201. */
export function registerRequest(headers: Record<string, string>, keyPrefix: string, id: string, n: number): Send {
  const [provider, name] = pick(PROVIDERS, n * 3);
  const team = pick(TEAMS, n);
  return {
    path: '/v1/governance/assets',
    headers: { ...headers, 'Content-Type': 'application/json', 'Idempotency-Key': `${keyPrefix}-${id}` },
    body: JSON.stringify({
      asset_id: id,
      name: `${team} assistant ${n}`,
      purpose: `${pick(PURPOSES, n * 7 + 1)} for the ${team} team (bench asset ${n})`,
      owner: { type: 'user', id: `owner-${team.toLowerCase()}-${n % 37}` },
      deployment_context: `${team}, internal, ${n % 5 === 0 ? 'EU and US' : 'EU only'}`,
      models: [{ provider, name }],
      actor: REQUESTER,
    }),
  };
}

/** POST /v1/risk/evaluations of `id` with inputs that need an approval. Answers 201. */
export function evaluateRequest(headers: Record<string, string>, key: string, id: string): Send {
  return {
    path: '/v1/risk/evaluations',
    headers: { ...headers, 'Content-Type': 'application/json', 'Idempotency-Key': key },
    body: JSON.stringify({ asset_id: id, risk_inputs: HIGH_INPUTS, actor: REQUESTER }),
  };
}

export type EvaluationShapeName = 'spread' | 'hot_asset';

export type EvaluationShape = {
  name: EvaluationShapeName;
  describe: string;
  /** Request i; `keyPrefix` makes its Idempotency-Key unique to one run of one server. */
  request(keyPrefix: string, i: number): Send;
};

/** Evaluations spread over `assetIds` (request i evaluates asset i mod n), or all of one asset. */
export function evaluationShape(name: EvaluationShapeName, headers: Record<string, string>, assetIds: readonly string[]): EvaluationShape {
  const describe = name === 'spread' ? `evaluations spread over ${assetIds.length.toLocaleString('en-US')} assets` : `every evaluation of one asset (${assetIds[0]})`;
  return { name, describe, request: (k, i) => evaluateRequest(headers, `${k}-${i}`, pick(assetIds, i)) };
}

export type ListQuery = { tier?: string; status?: string; cursor?: string; limit?: number };

/** GET /v1/governance/assets with a query. Answers 200. */
export function listRequest(headers: Record<string, string>, query: ListQuery = {}): Send {
  const q = new URLSearchParams(Object.entries(query).map(([k, v]) => [k, String(v)])).toString();
  return { path: `/v1/governance/assets${q ? `?${q}` : ''}`, headers };
}

export type AssetPage = { assets: Array<{ asset_id: string; tier: string | null; status: string }>; next_cursor: string | null };

/** Registers `ids` (outside any timed run) at `concurrency`; throws unless every one answered 201. */
export async function registerAssets(client: HttpClient, headers: Record<string, string>, keyPrefix: string, ids: readonly string[], concurrency: number): Promise<LoadResult> {
  const r = await runLoad(client, { concurrency, durationMs: 30 * 60_000, maxRequests: ids.length, okStatus: 201, request: (i) => registerRequest(headers, keyPrefix, ids[i]!, i) });
  if (r.ok !== ids.length) throw new Error(`registering ${ids.length} assets: ${r.ok} answered 201; first error: ${r.firstError}`);
  return r;
}

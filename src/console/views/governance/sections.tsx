// The governance sections, read-only (the dashboard has its own module): the asset registry with
// risk tiers, the approvals queue, incidents with their Art. 73 clocks and posture per regulatory
// profile. Ids that match link across: an asset to its approvals and incidents, an approval or
// incident to its asset.
import type { Operations } from '../../../client/operations.gen.ts';
import { ErrorBox, Failure, failureOf, JsonView, Loaded, NonClaims, useConsole, useLoad } from '../../ui.tsx';
import { actorText, ApprovalLink, AssetLink, Badge, Card, counts, Empty, Filters, govHref, IncidentLink, joined, Pager } from './common.tsx';

type Body<O extends keyof Operations> = Operations[O]['responses'] extends { 200: infer B } ? B : never;
type Asset = Body<'GET /v1/governance/assets/{asset_id}'>;
type Approval = Body<'GET /v1/approvals/{approval_id}'>;
type Incident = Body<'GET /v1/incidents/{incident_id}'>;

const TIERS = ['minimal', 'limited', 'high', 'prohibited'] as const;
const ASSET_STATUSES = ['registered', 'pending_approval', 'approved', 'rejected', 'blocked', 'evaluation_required', 'retired'] as const;
const APPROVAL_STATUSES = ['pending', 'approved', 'rejected', 'withdrawn', 'superseded', 'expired'] as const;
const INCIDENT_STATUSES = ['open', 'investigating', 'mitigated', 'closed'] as const;
const SEVERITIES = ['sev1', 'sev2', 'sev3', 'sev4'] as const;

/** A query value from the hash, when it is one of the allowed values. */
function pick<T extends string>(query: URLSearchParams, name: string, allowed: readonly T[]): T | undefined {
  const v = query.get(name);
  return v !== null && (allowed as readonly string[]).includes(v) ? (v as T) : undefined;
}
const cursorOf = (query: URLSearchParams) => query.get('cursor') ?? undefined;

function AssetRows({ assets }: { assets: Asset[] }) {
  if (assets.length === 0) return <Empty>No assets.</Empty>;
  return (
    <div class="table-wrap">
      <table class="pv-wide" aria-label="Assets">
        <thead>
          <tr>
            <th scope="col">Asset</th>
            <th scope="col">Name</th>
            <th scope="col">Risk tier</th>
            <th scope="col">Status</th>
            <th scope="col">In use allowed</th>
            <th scope="col">Approval</th>
            <th scope="col">Owner</th>
          </tr>
        </thead>
        <tbody>
          {assets.map((a) => (
            <tr key={a.asset_id} data-asset={a.asset_id}>
              <th scope="row">
                <AssetLink id={a.asset_id} />
              </th>
              <td>{a.name}</td>
              <td>{a.tier === null ? <span class="note">not evaluated</span> : <Badge value={a.tier} />}</td>
              <td>
                <Badge value={a.status} />
              </td>
              <td>{a.in_use_allowed ? 'yes' : 'no'}</td>
              <td>
                {a.approval ? (
                  <>
                    <ApprovalLink id={a.approval.approval_id} /> <Badge value={a.approval.status} />
                  </>
                ) : (
                  '—'
                )}
              </td>
              <td>{actorText(a.owner)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

export function Assets({ query }: { query: URLSearchParams }) {
  const { client } = useConsole();
  const q = { tier: pick(query, 'tier', TIERS), status: pick(query, 'status', ASSET_STATUSES), cursor: cursorOf(query), limit: 50 };
  const [load] = useLoad(async () => {
    const res = await client.call('GET /v1/governance/assets', { query: q });
    return res.status === 200 ? res.body : failureOf(res);
  }, [query.toString()]);
  return (
    <>
      <Filters
        section="assets"
        query={query}
        filters={[
          { name: 'tier', label: 'Risk tier', options: TIERS },
          { name: 'status', label: 'Status', options: ASSET_STATUSES },
        ]}
      />
      <Loaded load={load}>
        {(page) => (
          <>
            <AssetRows assets={page.assets} />
            <Pager section="assets" query={query} next={page.next_cursor} />
          </>
        )}
      </Loaded>
    </>
  );
}

export function AssetDetail({ id, has }: { id: string; has: (route: string) => boolean }) {
  const { client } = useConsole();
  const [load] = useLoad(async () => {
    const res = await client.call('GET /v1/governance/assets/{asset_id}', { params: { asset_id: id } });
    return res.status === 200 ? res.body : failureOf(res);
  }, [id]);
  return (
    <Loaded load={load}>
      {(a) => (
        <>
          <h2 id="asset-title">
            {a.name} <span class="note mono">{a.asset_id}</span>
          </h2>
          <dl class="pv-facts">
            <dt>Risk tier</dt>
            <dd>{a.tier === null ? 'not evaluated' : <Badge value={a.tier} />}</dd>
            <dt>Status</dt>
            <dd>
              <Badge value={a.status} /> {a.in_use_allowed ? '(in use allowed)' : '(not allowed in use)'}
            </dd>
            <dt>Purpose</dt>
            <dd>{a.purpose}</dd>
            <dt>Deployment</dt>
            <dd>{a.deployment_context}</dd>
            <dt>Owner</dt>
            <dd>{actorText(a.owner)}</dd>
            <dt>Models</dt>
            <dd>{a.models.map((m) => `${m.provider}/${m.name}${m.version ? `@${m.version}` : ''}`).join(', ')}</dd>
            <dt>Latest evaluation</dt>
            <dd>{a.latest_evaluation ? `${a.latest_evaluation.evaluation_id} · ${a.latest_evaluation.tier} · ${a.latest_evaluation.evaluated_at}` : '—'}</dd>
            <dt>Approval</dt>
            <dd>
              {a.approval ? (
                <>
                  <ApprovalLink id={a.approval.approval_id} /> <Badge value={a.approval.status} />
                </>
              ) : (
                '—'
              )}
            </dd>
            <dt>Last review</dt>
            <dd>{a.last_review ? `cycle ${a.last_review.cycle}, ${a.last_review.outcome}, next due ${a.last_review.next_due_at ?? '—'}` : '—'}</dd>
            <dt>Revision</dt>
            <dd>
              {a.revision} · registered {a.registered_at} · updated {a.updated_at}
            </dd>
          </dl>
          {has('GET /v1/approvals') && (
            <>
              <h3 id="asset-approvals">Approvals of this asset</h3>
              <ApprovalList query={new URLSearchParams({ asset_id: a.asset_id })} labelledBy="asset-approvals" />
            </>
          )}
          {has('GET /v1/incidents') && (
            <>
              <h3 id="asset-incidents">Incidents touching this asset</h3>
              <IncidentList query={new URLSearchParams({ asset_id: a.asset_id })} labelledBy="asset-incidents" />
            </>
          )}
          <JsonView value={a} label="Asset JSON" />
        </>
      )}
    </Loaded>
  );
}

function ApprovalList({ query, labelledBy }: { query: URLSearchParams; labelledBy?: string }) {
  const { client } = useConsole();
  const q = { status: pick(query, 'status', APPROVAL_STATUSES), asset_id: query.get('asset_id') ?? undefined, cursor: cursorOf(query), limit: 50 };
  const [load] = useLoad(async () => {
    const res = await client.call('GET /v1/approvals', { query: q });
    return res.status === 200 ? res.body : failureOf(res);
  }, [query.toString()]);
  return (
    <Loaded load={load}>
      {(page) =>
        page.approvals.length === 0 ? (
          <Empty>No approvals{q.status ? ` with status ${q.status}` : ''}.</Empty>
        ) : (
          <>
            <div class="table-wrap">
              <table class="pv-wide" aria-labelledby={labelledBy} aria-label={labelledBy ? undefined : 'Approvals'}>
                <thead>
                  <tr>
                    <th scope="col">Approval</th>
                    <th scope="col">Asset</th>
                    <th scope="col">Tier</th>
                    <th scope="col">Status</th>
                    <th scope="col">Step</th>
                    <th scope="col">Needs role</th>
                    <th scope="col">Due</th>
                  </tr>
                </thead>
                <tbody>
                  {page.approvals.map((a) => (
                    <tr key={a.approval_id} data-approval={a.approval_id}>
                      <th scope="row">
                        <ApprovalLink id={a.approval_id} />
                      </th>
                      <td>
                        <AssetLink id={a.subject.asset_id} />
                      </td>
                      <td>
                        <Badge value={a.subject.tier} />
                      </td>
                      <td>
                        <Badge value={a.status} />
                      </td>
                      <td>{a.current_step === null ? '—' : `${a.current_step} of ${a.steps.length}`}</td>
                      <td>{a.assignee_role?.replace(/_/g, ' ') ?? '—'}</td>
                      <td>{a.due_at}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
            {labelledBy === undefined && <Pager section="approvals" query={query} next={page.next_cursor} />}
          </>
        )
      }
    </Loaded>
  );
}

export function Approvals({ query }: { query: URLSearchParams }) {
  // The queue: pending first, unless a filter says otherwise (status "any" is an empty value).
  const effective = new URLSearchParams(query);
  if (!query.has('status')) effective.set('status', 'pending');
  return (
    <>
      <Filters section="approvals" query={effective} filters={[{ name: 'status', label: 'Status', options: APPROVAL_STATUSES }]} />
      <ApprovalList query={effective} />
    </>
  );
}

export function ApprovalDetail({ id }: { id: string }) {
  const { client } = useConsole();
  const [load] = useLoad(async () => {
    const res = await client.call('GET /v1/approvals/{approval_id}', { params: { approval_id: id } });
    return res.status === 200 ? res.body : failureOf(res);
  }, [id]);
  return (
    <Loaded load={load}>
      {(a: Approval) => (
        <>
          <h2 id="approval-title">
            Approval <span class="mono">{a.approval_id}</span>
          </h2>
          <dl class="pv-facts">
            <dt>Status</dt>
            <dd>
              <Badge value={a.status} />
              {a.superseded_by ? ` by ${a.superseded_by}` : ''}
            </dd>
            <dt>Asset</dt>
            <dd>
              <AssetLink id={a.subject.asset_id} /> · tier <Badge value={a.subject.tier} /> · evaluation <span class="mono">{a.subject.evaluation_id}</span>
            </dd>
            <dt>Requested</dt>
            <dd>
              {a.requested_at} by {actorText(a.requested_by)}; due {a.due_at}
            </dd>
            <dt>Asset owner</dt>
            <dd>{actorText(a.asset_owner)}</dd>
            <dt>Current step</dt>
            <dd>{a.current_step === null ? '—' : `${a.current_step} (${a.assignee_role?.replace(/_/g, ' ') ?? '—'})`}</dd>
          </dl>
          <h3 id="approval-steps">Steps and decisions</h3>
          <div class="table-wrap">
            <table class="pv-wide" aria-labelledby="approval-steps">
              <thead>
                <tr>
                  <th scope="col">Step</th>
                  <th scope="col">Role</th>
                  <th scope="col">Decisions</th>
                </tr>
              </thead>
              <tbody>
                {a.steps.map((s) => (
                  <tr key={s.step}>
                    <th scope="row">{s.step}</th>
                    <td>
                      {s.role.replace(/_/g, ' ')}
                      {s.min_approvers && s.min_approvers > 1 ? ` (${s.min_approvers} approvers)` : ''}
                    </td>
                    <td>
                      {joined(
                        a.decisions
                          .filter((d) => d.step === s.step)
                          .map((d) => (
                            <span key={d.seq}>
                              <Badge value={d.decision === 'approve' ? 'approved' : d.decision} /> {actorText(d.actor)}, {d.decided_at}: “{d.reason}”
                            </span>
                          )),
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <p>
            <a href={govHref(['assets', a.subject.asset_id])}>Incidents and other approvals of {a.subject.asset_id}</a>
          </p>
          <JsonView value={a} label="Approval JSON" />
        </>
      )}
    </Loaded>
  );
}

function clockText(i: Incident): preact.ComponentChildren {
  if (i.clocks.length === 0) return <span class="note">none</span>;
  return i.clocks.map((c) => (
    <span key={c.regime}>
      <Badge value={c.status} /> {c.days} days, due {c.due_at}
    </span>
  ));
}

function IncidentList({ query, labelledBy }: { query: URLSearchParams; labelledBy?: string }) {
  const { client } = useConsole();
  const q = { status: pick(query, 'status', INCIDENT_STATUSES), severity: pick(query, 'severity', SEVERITIES), asset_id: query.get('asset_id') ?? undefined, cursor: cursorOf(query), limit: 50 };
  const [load] = useLoad(async () => {
    const res = await client.call('GET /v1/incidents', { query: q });
    return res.status === 200 ? res.body : failureOf(res);
  }, [query.toString()]);
  return (
    <Loaded load={load}>
      {(page) =>
        page.incidents.length === 0 ? (
          <Empty>No incidents.</Empty>
        ) : (
          <>
            <div class="table-wrap">
              <table class="pv-wide" aria-labelledby={labelledBy} aria-label={labelledBy ? undefined : 'Incidents'}>
                <thead>
                  <tr>
                    <th scope="col">Incident</th>
                    <th scope="col">Title</th>
                    <th scope="col">Severity</th>
                    <th scope="col">Status</th>
                    <th scope="col">Assets</th>
                    <th scope="col">Serious</th>
                    <th scope="col">Art. 73 clock</th>
                  </tr>
                </thead>
                <tbody>
                  {page.incidents.map((i) => (
                    <tr key={i.incident_id} data-incident={i.incident_id}>
                      <th scope="row">
                        <IncidentLink id={i.incident_id} />
                      </th>
                      <td>{i.title}</td>
                      <td>
                        <Badge value={i.severity} />
                      </td>
                      <td>
                        <Badge value={i.status} />
                      </td>
                      <td>{joined(i.asset_ids.map((a) => <AssetLink key={a} id={a} />))}</td>
                      <td>{i.serious.is_serious ? `yes (${i.serious.basis ?? '—'})` : 'no'}</td>
                      <td>{clockText(i)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
            {labelledBy === undefined && <Pager section="incidents" query={query} next={page.next_cursor} />}
          </>
        )
      }
    </Loaded>
  );
}

export function Incidents({ query }: { query: URLSearchParams }) {
  return (
    <>
      <Filters
        section="incidents"
        query={query}
        filters={[
          { name: 'status', label: 'Status', options: INCIDENT_STATUSES },
          { name: 'severity', label: 'Severity', options: SEVERITIES },
        ]}
      />
      <IncidentList query={query} />
    </>
  );
}

export function IncidentDetail({ id }: { id: string }) {
  const { client } = useConsole();
  const [load] = useLoad(async () => {
    const res = await client.call('GET /v1/incidents/{incident_id}', { params: { incident_id: id } });
    return res.status === 200 ? res.body : failureOf(res);
  }, [id]);
  return (
    <Loaded load={load}>
      {(i) => (
        <>
          <h2 id="incident-title">{i.title}</h2>
          <dl class="pv-facts">
            <dt>Incident</dt>
            <dd class="mono">{i.incident_id}</dd>
            <dt>Class</dt>
            <dd>{i.class}</dd>
            <dt>Severity</dt>
            <dd>
              <Badge value={i.severity} />
            </dd>
            <dt>Status</dt>
            <dd>
              <Badge value={i.status} />
              {i.close_reason ? ` (${i.close_reason.replace(/_/g, ' ')})` : ''}
            </dd>
            <dt>Assets</dt>
            <dd>{joined(i.asset_ids.map((a) => <AssetLink key={a} id={a} />))}</dd>
            <dt>Serious</dt>
            <dd>{i.serious.is_serious ? `yes (${i.serious.basis ?? '—'})` : 'no'}</dd>
            <dt>Aware at</dt>
            <dd>{i.aware_at}</dd>
            <dt>Art. 73 clock</dt>
            <dd>{clockText(i)}</dd>
            <dt>Reported by</dt>
            <dd>
              {actorText(i.reported_by)} at {i.logged_at}
            </dd>
            <dt>Description</dt>
            <dd>{i.description}</dd>
          </dl>
          <NonClaims items={i.non_claims} />
          <JsonView value={i} label="Incident JSON" />
        </>
      )}
    </Loaded>
  );
}

export function Posture({ query }: { query: URLSearchParams }) {
  const { client } = useConsole();
  const [profiles] = useLoad(async () => {
    const res = await client.call('GET /v1/regulatory/profiles');
    return res.status === 200 ? res.body : failureOf(res);
  }, []);
  return (
    <Loaded load={profiles}>
      {(list) => {
        // No profile in the address: the first. A profile the server does not have: said, not replaced.
        const asked = query.get('profile');
        const chosen = asked === null ? list.profiles[0] : list.profiles.find((p) => p.profile_id === asked);
        const unknown = asked !== null && chosen === undefined;
        return (
          <>
            <div class="pv-inline">
              <label for="posture-profile">Profile</label>
              <select id="posture-profile" value={chosen?.profile_id ?? ''} onChange={(e) => (location.hash = govHref(['posture'], { profile: e.currentTarget.value }))}>
                {unknown && (
                  <option value="" disabled>
                    Pick a profile
                  </option>
                )}
                {list.profiles.map((p) => (
                  <option key={p.profile_id} value={p.profile_id}>
                    {p.title}
                  </option>
                ))}
              </select>
            </div>
            {unknown ? (
              <ErrorBox failure={new Failure(null, 'No such profile', `This server has no regulatory profile “${asked}”. Pick one of its ${list.profiles.length} profiles.`)} />
            ) : chosen === undefined ? (
              <Empty>No regulatory profiles are loaded.</Empty>
            ) : (
              <>
                <p class="note">
                  {chosen.kind} · {chosen.status.replace(/_/g, ' ')}
                  {chosen.jurisdiction ? ` · ${chosen.jurisdiction}` : ''} · {chosen.version_label}
                </p>
                <PostureTable key={chosen.profile_id} profileId={chosen.profile_id} />
              </>
            )}
          </>
        );
      }}
    </Loaded>
  );
}

function PostureTable({ profileId }: { profileId: string }) {
  const { client } = useConsole();
  const [load] = useLoad(async () => {
    const res = await client.call('GET /v1/regulatory/posture', { query: { profile_id: profileId } });
    return res.status === 200 ? res.body : failureOf(res);
  }, [profileId]);
  return (
    <Loaded load={load}>
      {(p) => (
        <>
          <div class="grid" role="group" aria-label="Posture summary">
            <Card label="Met" value={p.summary.met_pct === null ? '—' : `${p.summary.met_pct} %`}>
              <div class="note">
                {p.summary.counts.met} of {p.summary.applicable} applicable
              </div>
            </Card>
            <Card label="Verified" value={p.summary.verified_pct === null ? '—' : `${p.summary.verified_pct} %`}>
              <div class="note">{p.summary.met_by_confidence.verified} met with verified evidence</div>
            </Card>
            <Card label="Requirements" value={p.summary.requirements}>
              <div class="note">{counts(p.summary.counts)}</div>
            </Card>
          </div>
          <h2 id="posture-items">{p.title}</h2>
          <div class="table-wrap">
            <table class="pv-wide" aria-labelledby="posture-items">
              <thead>
                <tr>
                  <th scope="col">Requirement</th>
                  <th scope="col">Group</th>
                  <th scope="col">Status</th>
                  <th scope="col">Owner</th>
                  <th scope="col">Evidence</th>
                  <th scope="col">Confidence</th>
                </tr>
              </thead>
              <tbody>
                {p.items.map((it) => (
                  <tr key={it.requirement_id} data-requirement={it.requirement_id}>
                    <th scope="row">
                      <span class="mono">{it.ref}</span>
                      <div class="pv-req">{it.title}</div>
                    </th>
                    <td>{it.group_id}</td>
                    <td>
                      <Badge value={it.status} />
                    </td>
                    <td>{actorText(it.owner)}</td>
                    <td class="mono">{it.evidence_refs.join(', ') || '—'}</td>
                    <td>
                      <Badge value={it.evidence_confidence} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <NonClaims items={p.non_claims} />
        </>
      )}
    </Loaded>
  );
}

// Small pieces the governance sections share: badges for tiers, statuses and severities, links
// between assets, approvals and incidents, a filter form in the hash query, cursor paging, and the
// dashboard's cards.
import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { href } from '../../router.ts';

export type Section = 'dashboard' | 'assets' | 'approvals' | 'incidents' | 'posture';

/** A governance href with an optional hash query: #/governance/assets?tier=high. */
export function govHref(parts: string[], query?: Record<string, string | undefined>): string {
  const q = new URLSearchParams();
  // An empty value stays (status=): it means "any", where a list has a default (the approvals queue: pending).
  for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined) q.set(k, v);
  const text = q.toString();
  return `${href('governance', ...parts)}${text ? `?${text}` : ''}`;
}

const TONE: Record<string, string> = {
  minimal: 'ok',
  limited: 'warn',
  high: 'bad',
  prohibited: 'bad',
  approved: 'ok',
  pending: 'warn',
  pending_approval: 'warn',
  registered: '',
  rejected: 'bad',
  blocked: 'bad',
  expired: 'bad',
  evaluation_required: 'warn',
  open: 'bad',
  investigating: 'warn',
  mitigated: 'ok',
  closed: '',
  sev1: 'bad',
  sev2: 'bad',
  sev3: 'warn',
  sev4: '',
  running: 'warn',
  overdue: 'bad',
  answered: 'ok',
  met: 'ok',
  in_progress: 'warn',
  not_started: '',
  not_applicable: '',
  verified: 'ok',
  claimed: 'warn',
};

export function Badge({ value }: { value: string | null | undefined }) {
  if (value === null || value === undefined) return <span class="note">—</span>;
  return <span class={`badge ${TONE[value] ?? ''}`}>{value.replace(/_/g, ' ')}</span>;
}

export const AssetLink = ({ id }: { id: string }) => (
  <a href={govHref(['assets', id])} class="mono">
    {id}
  </a>
);
export const ApprovalLink = ({ id }: { id: string }) => (
  <a href={govHref(['approvals', id])} class="mono">
    {id}
  </a>
);
export const IncidentLink = ({ id }: { id: string }) => (
  <a href={govHref(['incidents', id])} class="mono">
    {id}
  </a>
);

export const actorText = (a: { type: string; id: string } | null | undefined) => (a ? `${a.id} (${a.type.replace(/_/g, ' ')})` : '—');

export function joined(items: ComponentChildren[]): ComponentChildren {
  return items.length === 0 ? '—' : items.map((item, i) => [i > 0 ? ', ' : null, item]);
}

type Filter = { name: string; label: string; options: readonly string[] };

/** Filters kept in the hash query, so a filtered list has a link; changing one starts at the first page. */
export function Filters({ section, filters, query }: { section: Section; filters: Filter[]; query: URLSearchParams }) {
  const [values, setValues] = useState<Record<string, string>>(() => Object.fromEntries(filters.map((f) => [f.name, query.get(f.name) ?? ''])));
  return (
    <form
      class="pv-row pv-filters"
      aria-label="Filters"
      onSubmit={(e) => {
        e.preventDefault();
        location.hash = govHref([section], values);
      }}
    >
      {filters.map((f) => (
        <label key={f.name}>
          {f.label}
          <select value={values[f.name]} onChange={(e) => setValues({ ...values, [f.name]: e.currentTarget.value })}>
            <option value="">any</option>
            {f.options.map((o) => (
              <option key={o} value={o}>
                {o.replace(/_/g, ' ')}
              </option>
            ))}
          </select>
        </label>
      ))}
      <button type="submit">Apply filters</button>
    </form>
  );
}

/** First page / next page links for a cursor-paged list. */
export function Pager({ section, query, next }: { section: Section; query: URLSearchParams; next: string | null }) {
  const base = Object.fromEntries([...query.entries()].filter(([k]) => k !== 'cursor'));
  if (next === null && !query.has('cursor')) return null;
  return (
    <p class="pv-row">
      {query.has('cursor') && <a href={govHref([section], base)}>First page</a>}
      {next !== null && <a href={govHref([section], { ...base, cursor: next })}>Next page</a>}
    </p>
  );
}

export function Empty({ children }: { children: ComponentChildren }) {
  return <p class="note">{children}</p>;
}

/** A dashboard figure: its label, the number, and a line or two under it. */
export function Card({ label, value, children }: { label: string; value: string | number | null; children?: ComponentChildren }) {
  return (
    <div class="card">
      <div class="note">{label}</div>
      <div class="value">{value ?? '—'}</div>
      {children}
    </div>
  );
}

/** The non-zero members of a count object, "high 2 · limited 1", or "none". */
export const counts = (o: Record<string, number>) =>
  Object.entries(o)
    .filter(([, n]) => n > 0)
    .map(([k, n]) => `${k.replace(/_/g, ' ')} ${n}`)
    .join(' · ') || 'none';

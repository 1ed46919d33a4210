// Quota: the forge quota engine (docs/quota.md). Groups and rules, each owner's standing overall and
// per subject with the deciding group and rule — the explanation `gov quota eval` prints, computed
// here by the same pure engine — and a dry run that re-evaluates changed usage in the page. These
// are operator routes; quota switched off (404 on every quota route) is shown as such.
import { useState } from 'preact/hooks';
import type { QuotaDecision } from '../../domain/quota/evaluate.ts';
import { SEED_SUBJECTS, type Primitives, type Subject } from '../../domain/quota/subjects.ts';
import { href, navigate, type Route } from '../router.ts';
import { ErrorBox, Failure, Loaded, Page, useConsole, useLoad } from '../ui.tsx';
import { COUNTERS, evaluate, groupListOf, humanBytes, limitText, loadQuota, NOTE, parseBytes, SOURCE_LABEL, standingText, type Owner, type QuotaModel } from './quota/model.ts';

export function QuotaView({ route }: { route: Route }) {
  const { client } = useConsole();
  const [load, reload] = useLoad(() => loadQuota(client), []);
  const [defaultTotal, setDefaultTotal] = useState(-1);
  return (
    <Page
      title="Quota"
      actions={
        <button type="button" onClick={reload}>
          Reload quota
        </button>
      }
    >
      <p class="note">The forge's quota engine: rules sum an owner's usage over their subjects, groups hold rules, and an owner stands when one of their groups does. Operator view.</p>
      <Loaded load={load}>
        {(model) =>
          model.enabled ? (
            <Enabled model={model} selected={route.parts[1]} defaultTotal={defaultTotal} setDefaultTotal={setDefaultTotal} />
          ) : (
            <Disabled model={model} />
          )
        }
      </Loaded>
    </Page>
  );
}

function Disabled({ model }: { model: Extract<QuotaModel, { enabled: false }> }) {
  return (
    <>
      <div class="error pv-off" role="status" data-testid="quota-disabled">
        <strong>Quota is switched off on this server</strong>
        <p>Every quota route answers 404 and every standing holds (reason quota_disabled). The server says: {model.message}</p>
      </div>
      <h2 id="owners-title">Forge owners</h2>
      <ul aria-labelledby="owners-title">
        {model.owners.map((o) => (
          <li key={o.login}>
            {o.login} <span class="note">({o.kind})</span> — within quota (quota disabled)
          </li>
        ))}
      </ul>
    </>
  );
}

type EnabledProps = { model: Extract<QuotaModel, { enabled: true }>; selected: string | undefined; defaultTotal: number; setDefaultTotal: (n: number) => void };

function Enabled({ model, selected, defaultTotal, setDefaultTotal }: EnabledProps) {
  const owner = model.owners.find((o) => o.login.toLowerCase() === selected?.toLowerCase()) ?? null;
  const anyBuiltin = model.owners.some((o) => o.source === 'builtin_default');
  const [totalText, setTotalText] = useState(String(defaultTotal));
  return (
    <>
      <section aria-labelledby="groups-title" class="pv-block">
        <h2 id="groups-title">Groups</h2>
        {model.groups.length === 0 ? (
          <p class="note">No quota groups. Owners fall back to the default groups of the configuration, or the built-in group.</p>
        ) : (
          <div class="table-wrap">
            <table class="pv-wide" aria-labelledby="groups-title">
              <thead>
                <tr>
                  <th scope="col">Group</th>
                  <th scope="col">Rules</th>
                  <th scope="col">Members</th>
                </tr>
              </thead>
              <tbody>
                {model.groups.map((g) => (
                  <tr key={g.name}>
                    <th scope="row">{g.name}</th>
                    <td>
                      {g.rules.length === 0
                        ? '(no rules)'
                        : g.rules.map((r) => (
                            <div key={r.name}>
                              <span class="mono">{r.name}</span>: {limitText(r.limit)} · {r.subjects.join(', ') || 'no subjects'}
                            </div>
                          ))}
                    </td>
                    <td>{(model.members.get(g.name) ?? []).join(', ') || '—'}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>
      <section aria-labelledby="rules-title" class="pv-block">
        <h2 id="rules-title">Rules</h2>
        <div class="table-wrap">
          <table class="pv-wide" aria-labelledby="rules-title">
            <thead>
              <tr>
                <th scope="col">Rule</th>
                <th scope="col">Limit</th>
                <th scope="col">Subjects</th>
                <th scope="col">In groups</th>
              </tr>
            </thead>
            <tbody>
              {model.rules.map((r) => (
                <tr key={r.name}>
                  <th scope="row" class="mono">
                    {r.name}
                  </th>
                  <td>
                    {limitText(r.limit)} <span class="note mono">{r.limit}</span>
                  </td>
                  <td class="mono">{r.subjects.join(', ') || '—'}</td>
                  <td>
                    {model.groups
                      .filter((g) => g.rules.some((x) => x.name === r.name))
                      .map((g) => g.name)
                      .join(', ') || '—'}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </section>
      <section aria-labelledby="standing-title" class="pv-block">
        <h2 id="standing-title">Standing</h2>
        {anyBuiltin && (
          <form
            class="pv-row"
            onSubmit={(e) => {
              e.preventDefault();
              const n = parseBytes(totalText);
              if (n !== null) setDefaultTotal(n);
            }}
          >
            <label>
              Default total (built-in group)
              <input value={totalText} onInput={(e) => setTotalText(e.currentTarget.value)} aria-describedby="default-total-help" aria-invalid={parseBytes(totalText) === null} />
            </label>
            <button type="submit">Use default total</button>
            <span id="default-total-help" class="note">
              Owners with no assigned and no existing default group are evaluated with the built-in group, one rule of the configured default total on size:all. The API does not
              say that total; -1 (unlimited) is the default configuration.
            </span>
          </form>
        )}
        <div class="table-wrap">
          <table class="pv-wide" aria-labelledby="standing-title">
            <thead>
              <tr>
                <th scope="col">Owner</th>
                <th scope="col">Groups</th>
                <th scope="col">Overall</th>
                <th scope="col">Deciding rule</th>
                <th scope="col">Used / limit</th>
                <th scope="col">Subjects not within</th>
              </tr>
            </thead>
            <tbody>
              {model.owners.map((o) => {
                const d = evaluate(o, o.usage, defaultTotal);
                const notWithin = d.subjects.filter((s) => !s.within).map((s) => s.subject);
                return (
                  <tr key={o.login} data-owner={o.login}>
                    <th scope="row">
                      <a href={href('quota', o.login)} aria-current={owner === o ? 'true' : undefined}>
                        {o.login}
                      </a>{' '}
                      <span class="note">({o.kind})</span>
                    </th>
                    <td>
                      {groupListOf(o, defaultTotal)
                        .map((g) => g.name)
                        .join(', ')}{' '}
                      <span class="note">[{SOURCE_LABEL[o.source]}]</span>
                    </td>
                    <td>
                      <Standing d={d.overall} />
                    </td>
                    <td class="mono">{d.overall.deciding ? `${d.overall.deciding.group} / ${d.overall.deciding.rule ?? '—'}` : NOTE[d.overall.reason] || '—'}</td>
                    <td>{d.overall.deciding ? `${humanBytes(d.overall.deciding.sum)} / ${limitText(d.overall.deciding.limit)}` : '—'}</td>
                    <td class="mono">{notWithin.length === 0 ? '—' : notWithin.join(', ')}</td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      </section>
      <section aria-labelledby="explain-title" class="pv-block">
        <h2 id="explain-title">Explain and dry run</h2>
        <div class="pv-inline">
          <label for="quota-owner">Owner</label>
          <select id="quota-owner" value={owner?.login ?? ''} onChange={(e) => navigate('quota', e.currentTarget.value)}>
            <option value="" disabled>
              Pick an owner
            </option>
            {model.owners.map((o) => (
              <option key={o.login} value={o.login}>
                {o.login}
              </option>
            ))}
          </select>
        </div>
        {owner === null && selected !== undefined && (
          <ErrorBox failure={new Failure(null, 'No such owner', `The forge has no user or organisation “${selected}”. Pick one of its ${model.owners.length} owners.`)} />
        )}
        {owner === null ? <p class="note">Pick an owner (or follow an owner's link above) to see every subject's decision and try other usage.</p> : <Explain key={owner.login} owner={owner} defaultTotal={defaultTotal} />}
      </section>
    </>
  );
}

function Standing({ d }: { d: QuotaDecision }) {
  const text = standingText(d);
  return <span class={`badge ${d.within ? 'ok' : 'bad'}`}>{text}</span>;
}

type Drafts = Record<keyof Primitives, string>;
const draftsOf = (p: Primitives): Drafts => Object.fromEntries(COUNTERS.map((c) => [c.key, String(p[c.key])])) as Drafts;

/** One owner: every subject recorded vs. dry run, and the rule outcomes behind one subject's decision. */
function Explain({ owner, defaultTotal }: { owner: Owner; defaultTotal: number }) {
  const [drafts, setDrafts] = useState<Drafts>(() => draftsOf(owner.usage));
  const [add, setAdd] = useState('');
  const [addTo, setAddTo] = useState<keyof Primitives>('gitLfs');
  const [subject, setSubject] = useState<Subject | 'overall'>('overall');
  const parsed = COUNTERS.map((c) => [c.key, parseBytes(drafts[c.key])] as const);
  const valid = parsed.every(([, v]) => v !== null && v >= 0);
  const usage = valid ? (Object.fromEntries(parsed) as Primitives) : owner.usage;
  const recorded = evaluate(owner, owner.usage, defaultTotal);
  const dry = evaluate(owner, usage, defaultTotal);
  // Any field that differs from the recorded usage, text that is not a byte count included: Reset is
  // how a bad entry is undone.
  const recordedDrafts = draftsOf(owner.usage);
  const changed = COUNTERS.some((c) => drafts[c.key] !== recordedDrafts[c.key]);
  const rows: [string, QuotaDecision, QuotaDecision][] = [['(overall)', recorded.overall, dry.overall], ...SEED_SUBJECTS.map((s, i): [string, QuotaDecision, QuotaDecision] => [s, recorded.subjects[i]!, dry.subjects[i]!])];
  const focus = subject === 'overall' ? dry.overall : dry.subjects[SEED_SUBJECTS.indexOf(subject)]!;
  const addBytes = parseBytes(add);

  return (
    <>
      <form
        class="pv-dry"
        aria-labelledby="dry-title"
        onSubmit={(e) => {
          e.preventDefault();
          const current = parseBytes(drafts[addTo]);
          if (addBytes !== null && current !== null) setDrafts({ ...drafts, [addTo]: String(current + addBytes) });
        }}
      >
        <h3 id="dry-title">Dry run for {owner.login} (nothing is written)</h3>
        <p class="note">Change the usage (bytes; 5MiB, 2GB work too) and every decision below is evaluated again in this page.</p>
        <div class="pv-counters">
          {COUNTERS.map((c) => (
            <div key={c.key} class="pv-counter">
              <label for={`dry-${c.key}`}>{c.label}</label>
              <input
                id={`dry-${c.key}`}
                inputMode="numeric"
                value={drafts[c.key]}
                aria-invalid={parseBytes(drafts[c.key]) === null}
                aria-describedby={`dry-${c.key}-human`}
                onInput={(e) => setDrafts({ ...drafts, [c.key]: e.currentTarget.value })}
              />
              <span class="note" id={`dry-${c.key}-human`}>
                {parseBytes(drafts[c.key]) === null ? 'not a byte count' : humanBytes(parseBytes(drafts[c.key])!)}
              </span>
            </div>
          ))}
        </div>
        <div class="pv-row">
          <label>
            Add bytes
            <input value={add} placeholder="5MiB" onInput={(e) => setAdd(e.currentTarget.value)} aria-invalid={add !== '' && addBytes === null} />
          </label>
          <label>
            Add to
            <select value={addTo} onChange={(e) => setAddTo(e.currentTarget.value as keyof Primitives)}>
              {COUNTERS.map((c) => (
                <option key={c.key} value={c.key}>
                  {c.label}
                </option>
              ))}
            </select>
          </label>
          <button type="submit" disabled={addBytes === null}>
            Add
          </button>
          <button type="button" onClick={() => setDrafts(recordedDrafts)} disabled={!changed}>
            Reset to recorded usage
          </button>
        </div>
        {!valid && (
          <p class="fail" role="alert">
            Every counter needs a byte count of 0 or more; the dry run uses the recorded usage until then.
          </p>
        )}
      </form>
      <h3 id="decisions-title">
        Decisions for {owner.login} <span class="note">— groups: {groupListOf(owner, defaultTotal).map((g) => g.name).join(', ')} [{SOURCE_LABEL[owner.source]}]</span>
      </h3>
      <div class="table-wrap">
        <table aria-labelledby="decisions-title" class="pv-wide pv-decisions">
          <thead>
            <tr>
              <th scope="col">Subject</th>
              <th scope="col">Recorded</th>
              <th scope="col">Dry run</th>
              <th scope="col">Group</th>
              <th scope="col">Rule</th>
              <th scope="col">Sum / limit</th>
              <th scope="col">Note</th>
            </tr>
          </thead>
          <tbody>
            {rows.map(([name, rec, d]) => (
              <tr key={name} data-subject={name} class={rec.within !== d.within ? 'pv-changed' : undefined}>
                <th scope="row" class="mono">
                  {name}
                </th>
                <td>
                  <Standing d={rec} />
                </td>
                <td>
                  <Standing d={d} />
                  {rec.within !== d.within && <span class="note"> changed</span>}
                </td>
                <td>{d.deciding?.group ?? '—'}</td>
                <td class="mono">{d.deciding?.rule ?? '—'}</td>
                <td>{d.deciding ? `${humanBytes(d.deciding.sum)} / ${limitText(d.deciding.limit)}` : '—'}</td>
                <td class="note">{NOTE[d.reason]}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <h3 id="rules-for-title">Why: every rule's outcome</h3>
      <div class="pv-inline">
        <label for="quota-subject">Subject</label>
        <select id="quota-subject" value={subject} onChange={(e) => setSubject(e.currentTarget.value as Subject | 'overall')}>
          <option value="overall">(overall)</option>
          {SEED_SUBJECTS.map((s) => (
            <option key={s} value={s}>
              {s}
            </option>
          ))}
        </select>
      </div>
      <p role="status">
        {subject === 'overall' ? 'Overall' : subject}: <Standing d={focus} />{' '}
        {focus.deciding ? `decided by ${focus.deciding.group} / ${focus.deciding.rule ?? '—'} (${humanBytes(focus.deciding.sum)} of ${limitText(focus.deciding.limit)})` : NOTE[focus.reason]}
        {subject === 'overall' ? ' — a group stands when all its rules stand.' : ' — only rules on this subject or an ancestor count; a group stands when it has one and all of them stand.'}
      </p>
      <div class="table-wrap">
        <table class="pv-wide" aria-labelledby="rules-for-title">
          <thead>
            <tr>
              <th scope="col">Group</th>
              <th scope="col">Rule</th>
              <th scope="col">Subjects</th>
              <th scope="col">Sum</th>
              <th scope="col">Limit</th>
              <th scope="col">Counts here</th>
              <th scope="col">Stands</th>
            </tr>
          </thead>
          <tbody>
            {focus.groups.flatMap((g) =>
              g.rules.length === 0 ? [
                <tr key={g.name}>
                  <th scope="row">
                    {g.name} <span class={`badge ${g.stands ? 'ok' : 'bad'}`}>{g.stands ? 'stands' : 'does not stand'}</span>
                  </th>
                  <td colSpan={6} class="note">no rules</td>
                </tr>,
              ] : g.rules.map((r, i) => (
                <tr key={`${g.name}/${r.name}`}>
                  {i === 0 && (
                    <th scope="row" rowSpan={g.rules.length}>
                      {g.name} <span class={`badge ${g.stands ? 'ok' : 'bad'}`}>{g.stands ? 'stands' : 'does not stand'}</span>
                    </th>
                  )}
                  <td class="mono">{r.name}</td>
                  <td class="mono">{r.subjects.join(', ')}</td>
                  <td>{humanBytes(r.sum)}</td>
                  <td>{limitText(r.limit)}</td>
                  <td>{r.relevant ? 'yes' : 'no'}</td>
                  <td class={r.stands ? 'pass' : 'fail'}>{r.stands ? 'yes' : 'no'}</td>
                </tr>
              )),
            )}
          </tbody>
        </table>
      </div>
    </>
  );
}

// Search (#/search?q=&kind=&task_id=): GET /v1/search, newest first, "More results" by next_cursor.
// The API answers authority: discovery_only, and the page says so: a hit is a pointer to a task's
// timeline (event truth), never proof of anything.
import { useState } from 'preact/hooks';
import type { SearchResult } from '../../domain/contract/schema-types.gen.ts';
import { href, hrefWith, type Route } from '../router.ts';
import { ErrorBox, Failure, failureOf, Page, useConsole, usePages } from '../ui.tsx';

type Hit = SearchResult['results'][number];
const PAGE = 20;

export function SearchView({ route }: { route: Route }) {
  const query = { q: route.query.get('q') ?? '', kind: route.query.get('kind') ?? '', task_id: route.query.get('task_id') ?? '' };
  const asked = query.q !== '' || query.kind !== '' || query.task_id !== '';
  return (
    <Page title="Search">
      <div class="discovery" role="note" aria-label="Discovery only">
        <strong>Discovery only — never proof.</strong> Search finds events to look at; it proves nothing. Open the task's timeline (event truth) before you claim anything from a
        hit.
      </div>
      <SearchForm key={`${query.q}\n${query.kind}\n${query.task_id}`} initial={query} />
      {asked ? <Results key={`${query.q}\n${query.kind}\n${query.task_id}`} query={query} /> : <p class="note">Type words to look for, or filter by event kind or task.</p>}
    </Page>
  );
}

type Query = { q: string; kind: string; task_id: string };

function SearchForm({ initial }: { initial: Query }) {
  const [draft, setDraft] = useState(initial);
  const set = (name: keyof Query) => (e: { currentTarget: HTMLInputElement }) => setDraft({ ...draft, [name]: e.currentTarget.value });
  return (
    <form
      role="search"
      aria-label="Search events"
      class="inline search"
      onSubmit={(e) => {
        e.preventDefault();
        location.hash = hrefWith({ q: draft.q.trim(), kind: draft.kind.trim(), task_id: draft.task_id.trim() }, 'search');
      }}
    >
      <label>
        Query
        <input type="search" name="q" value={draft.q} maxLength={256} onInput={set('q')} />
      </label>
      <label>
        Kind
        <input name="kind" value={draft.kind} placeholder="task.closed" onInput={set('kind')} />
      </label>
      <label>
        Task id
        <input name="task_id" value={draft.task_id} onInput={set('task_id')} />
      </label>
      <button type="submit" class="primary">
        Search
      </button>
    </form>
  );
}

function Results({ query }: { query: Query }) {
  const { client } = useConsole();
  const [nonClaims, setNonClaims] = useState<string[]>([]);
  const { items: hits, next: cursor, state, more } = usePages<Hit>(async (cursor) => {
    const res = await client.search({ q: query.q || undefined, kind: query.kind || undefined, task_id: query.task_id || undefined, limit: PAGE, cursor: cursor ?? undefined });
    if (res.status !== 200) return failureOf(res);
    setNonClaims(res.body.non_claims);
    return { items: res.body.results, next: res.body.next_cursor };
  }, [client]);

  return (
    <section aria-labelledby="results-title">
      <h2 id="results-title">Results</h2>
      {nonClaims.length > 0 && (
        <ul class="note">
          {nonClaims.map((text) => (
            <li key={text}>{text}</li>
          ))}
        </ul>
      )}
      {(state === 'ready' || hits.length > 0) && (
        <p class="note" role="status">
          {hits.length === 0 ? 'No events match.' : `${hits.length} hit${hits.length === 1 ? '' : 's'}${cursor !== null ? ' so far' : ''}, newest first.`}
        </p>
      )}
      <ol class="results" aria-label="Search results">
        {hits.map((hit) => (
          <li key={hit.event_id}>
            <div>
              <span class="mono">#{hit.seq}</span> <span class="mono">{hit.kind}</span>{' '}
              {hit.task_id !== null ? (
                <a href={href('tasks', hit.task_id)} title="Open the task's timeline">
                  {hit.task_id}
                </a>
              ) : (
                <span class="note">no task</span>
              )}
            </div>
            <Snippet text={hit.snippet} />
          </li>
        ))}
      </ol>
      {state === 'loading' && (
        <p class="loading" role="status" aria-live="polite">
          Searching…
        </p>
      )}
      {state instanceof Failure && <ErrorBox failure={state} />}
      {state === 'ready' && cursor !== null && (
        <button type="button" onClick={more}>
          More results
        </button>
      )}
    </section>
  );
}

/** The API marks each match in a snippet as [word]: shown highlighted. */
function Snippet({ text }: { text: string }) {
  const parts = text.split(/\[([^\]\n]+)\]/);
  return <p class="snippet">{parts.map((part, i) => (i % 2 === 1 ? <mark key={i}>{part}</mark> : part))}</p>;
}

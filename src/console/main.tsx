// The console: one page served by the preview at /console (docs/console.md). It talks only to the
// HTTP API through the typed client, signed in by a session cookie the page cannot read.
import { render } from 'preact';
import { useMemo, useRef, useState } from 'preact/hooks';
import { createConsoleClient, readScope, saveScope, type ClientScope } from './api.ts';
import { href, useRoute, type Route } from './router.ts';
import { Console, ErrorBox, Failure, failureOf, LiveStatus, thrownFailure, useConsole, type Message } from './ui.tsx';
import { EventsView } from './views/events.tsx';
import { GovernanceView } from './views/governance.tsx';
import { OverviewView } from './views/overview.tsx';
import { PacketsView } from './views/packets.tsx';
import { QuotaView } from './views/quota.tsx';
import { SearchView } from './views/search.tsx';
import { TasksView } from './views/tasks.tsx';

type View = { path: string; label: string; key: string; component: (props: { route: Route }) => preact.JSX.Element };

/** The navigation, in order; each entry's access key is Alt+<key> (Alt+Shift+<key> in Firefox). */
export const VIEWS: readonly View[] = [
  { path: '', label: 'Overview', key: 'o', component: OverviewView },
  { path: 'tasks', label: 'Tasks', key: 't', component: TasksView },
  { path: 'packets', label: 'Proof Packets', key: 'p', component: PacketsView },
  { path: 'search', label: 'Search', key: 's', component: SearchView },
  { path: 'quota', label: 'Quota', key: 'q', component: QuotaView },
  { path: 'governance', label: 'Governance', key: 'g', component: GovernanceView },
  { path: 'events', label: 'Live events', key: 'e', component: EventsView },
];

/** Signed in; the session gone on its own (an answer said 401); or ended by "Sign out". */
type Session = 'signed_in' | 'expired' | 'signed_out';

function App() {
  const route = useRoute();
  const [scope, setScope] = useState<ClientScope>(() => readScope());
  const [session, setSession] = useState<Session>('signed_in');
  const [status, setStatus] = useState<Message | null>(null);
  const rounds = useRef(0);
  const client = useMemo(() => createConsoleClient(scope), [scope]);
  const context = useMemo(
    () => ({ client, scope, signedOut: () => setSession((s) => (s === 'signed_out' ? s : 'expired')), announce: (text: string) => setStatus({ text, round: ++rounds.current }) }),
    [client, scope],
  );
  const current = VIEWS.find((v) => v.path === (route.parts[0] ?? '')) ?? null;

  return (
    <Console.Provider value={context}>
      {/* Not a hash link: the router reads every hash as a view. */}
      <a
        class="skip"
        href="#main"
        onClick={(e) => {
          e.preventDefault();
          document.getElementById('main')?.focus();
        }}
      >
        Skip to content
      </a>
      <header class="top">
        <a class="brand" href={href()}>
          gov <span>console</span>
        </a>
        <nav aria-label="Views">
          <ul>
            {VIEWS.map((v) => (
              <li key={v.path}>
                <a href={v.path === '' ? href() : href(v.path)} accessKey={v.key} aria-current={v === current ? 'page' : undefined}>
                  {v.label}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <ScopePicker
          scope={scope}
          onChange={(next) => {
            saveScope(next);
            setScope(next);
          }}
        />
        {session === 'signed_in' && <SignOut onDone={setSession} />}
      </header>
      <main id="main" tabIndex={-1}>
        <LiveStatus message={status} />
        {session !== 'signed_in' ? (
          <SignedOut how={session} />
        ) : current === null ? (
          <section class="page">
            <h1>Not found</h1>
            <p>
              There is no view at <code>{location.hash}</code>. <a href={href()}>Go to the overview</a>.
            </p>
          </section>
        ) : (
          <current.component key={`${scope.tenant_id}/${scope.workspace_id}/${scope.project_id}`} route={route} />
        )}
      </main>
    </Console.Provider>
  );
}

function SignedOut({ how }: { how: Exclude<Session, 'signed_in'> }) {
  return (
    <section class="page" role="alert">
      <h1>Signed out</h1>
      <p>
        {how === 'signed_out'
          ? 'You signed out: the session is ended and its cookies are cleared.'
          : "This console's session is gone (the preview restarted, or the session expired)."}{' '}
        Run <code>npx gov console</code> to open a fresh sign-in link.
      </p>
    </section>
  );
}

/**
 * Ends the session (POST /console/logout: the cookie, the CSRF header and this page's Origin, as
 * every console write) and shows the signed-out page. A 401 means it had already ended.
 */
function SignOut({ onDone }: { onDone: (session: Session) => void }) {
  const { client } = useConsole();
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<Failure | null>(null);
  const signOut = async () => {
    setBusy(true);
    setFailure(null);
    const res = await client.call('POST /console/logout').catch(thrownFailure);
    setBusy(false);
    if (res instanceof Failure) setFailure(res);
    else if (res.status === 204 || res.status === 401) {
      onDone(res.status === 204 ? 'signed_out' : 'expired');
      // The button is gone: the keyboard continues from the signed-out page.
      requestAnimationFrame(() => document.getElementById('main')?.focus());
    } else setFailure(failureOf(res));
  };
  return (
    <div class="signout">
      <button type="button" onClick={() => void signOut()} disabled={busy}>
        {busy ? 'Signing out…' : 'Sign out'}
      </button>
      {failure && <ErrorBox failure={failure} />}
    </div>
  );
}

function ScopePicker({ scope, onChange }: { scope: ClientScope; onChange: (scope: ClientScope) => void }) {
  const [draft, setDraft] = useState(scope);
  const field = (name: keyof ClientScope, label: string) => (
    <label>
      {label}
      <input name={name} value={draft[name]} required pattern="[A-Za-z0-9][A-Za-z0-9_.:\-]{1,127}" onInput={(e) => setDraft({ ...draft, [name]: e.currentTarget.value })} />
    </label>
  );
  return (
    <form
      class="scope"
      aria-label="Scope"
      onSubmit={(e) => {
        e.preventDefault();
        onChange(draft);
      }}
    >
      {field('tenant_id', 'Tenant')}
      {field('workspace_id', 'Workspace')}
      {field('project_id', 'Project')}
      <button type="submit">Use scope</button>
    </form>
  );
}

render(<App />, document.getElementById('app')!);

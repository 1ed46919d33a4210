// Small building blocks every view uses: a load hook with loading / error / data states, the
// problem-body error box, and an expandable JSON view.
import type { ComponentChildren } from 'preact';
import { createContext } from 'preact';
import { useCallback, useContext, useEffect, useRef, useState } from 'preact/hooks';
import { isAppError } from '../errors.ts';
import type { ClientScope, GovClient } from './api.ts';

export type ConsoleContext = {
  client: GovClient;
  scope: ClientScope;
  /** Called by a view when an answer says the session is gone (401). */
  signedOut: () => void;
  /** Says a success or a state change in the page's polite live region (screen readers read it once). */
  announce: (text: string) => void;
};

export const Console = createContext<ConsoleContext | null>(null);

export function useConsole(): ConsoleContext {
  const value = useContext(Console);
  if (value === null) throw new Error('useConsole outside <Console.Provider>');
  return value;
}

/** An answer the view could not use: its status and the server's problem body (or a network failure). */
export class Failure {
  constructor(
    readonly status: number | null,
    readonly title: string,
    readonly detail: string,
    readonly body?: unknown,
  ) {}
}

export type Load<T> = { state: 'loading' } | { state: 'error'; failure: Failure } | { state: 'ready'; data: T };

type Answer = { status: number; body: unknown };

/** A failure from an answer outside the expected statuses (its problem body's title and detail). */
export function failureOf(res: Answer): Failure {
  const body = res.body as { title?: unknown; detail?: unknown; message?: unknown } | null;
  const title = typeof body?.title === 'string' ? body.title : `HTTP ${res.status}`;
  const detail = typeof body?.detail === 'string' ? body.detail : typeof body?.message === 'string' ? body.message : typeof res.body === 'string' ? res.body : '';
  return new Failure(res.status, title, detail, res.body);
}

/**
 * The failure of a request that got no HTTP answer at all. The client's own message for that
 * (api_unreachable) is advice for the command line (--base-url, GOV_BASE_URL, run.json); a browser
 * can only wait for the preview to run again, and its session died with the last run.
 */
export function thrownFailure(err: unknown): Failure {
  if (isAppError(err) && err.code === 'api_unreachable') return unreachableFailure(err.cause);
  return new Failure(null, 'The server did not answer', err instanceof Error ? err.message : String(err));
}

/** The preview gave no HTTP answer (`cause`: the fetch's own failure): what to do about it in a browser. */
export function unreachableFailure(cause: unknown): Failure {
  const why = cause instanceof Error ? ` (${cause.message})` : '';
  return new Failure(
    null,
    'The server did not answer',
    `The gov preview at ${location.origin} did not answer${why}. If it stopped, start it again (npx gov preview start), then run npx gov console to sign in again: a session ends with the run that made it.`,
  );
}

/**
 * Runs `fetcher` on mount and whenever `deps` change; `reload()` runs it again. The fetcher returns
 * the data or a Failure (use failureOf for an unexpected status). A 401 signs the console out.
 */
export function useLoad<T>(fetcher: () => Promise<T | Failure>, deps: readonly unknown[]): [Load<T>, () => void] {
  const { signedOut } = useConsole();
  const [load, setLoad] = useState<Load<T>>({ state: 'loading' });
  const [round, setRound] = useState(0);
  useEffect(() => {
    let live = true;
    setLoad({ state: 'loading' });
    fetcher().then(
      (data) => {
        if (!live) return;
        if (data instanceof Failure) {
          if (data.status === 401) signedOut();
          setLoad({ state: 'error', failure: data });
        } else setLoad({ state: 'ready', data });
      },
      (err: unknown) => live && setLoad({ state: 'error', failure: thrownFailure(err) }),
    );
    return () => {
      live = false;
    };
  }, [...deps, round]);
  const reload = useCallback(() => setRound((r) => r + 1), []);
  return [load, reload];
}

/** A list read a page at a time: its items so far, the next page's cursor, and how the last read went. */
export type Pages<T> = { items: T[]; next: string | null; state: 'loading' | 'ready' | Failure; more: () => void };

/**
 * A list read page by page behind a "More …" button: the first page on mount and whenever `deps`
 * change, each next page appended by more(). `read` answers a page (its items and the next cursor,
 * null after the last) or a Failure (failureOf for an unexpected status); a 401 signs the console
 * out, and an answer that arrives after a newer read started is dropped.
 */
export function usePages<T>(read: (cursor: string | null) => Promise<{ items: T[]; next: string | null } | Failure>, deps: readonly unknown[]): Pages<T> {
  const { signedOut } = useConsole();
  const [items, setItems] = useState<T[]>([]);
  const [next, setNext] = useState<string | null>(null);
  const [state, setState] = useState<'loading' | 'ready' | Failure>('loading');
  const latest = useRef(0);

  async function readPage(cursor: string | null) {
    const call = ++latest.current;
    setState('loading');
    const page = await read(cursor).catch(thrownFailure);
    if (call !== latest.current) return;
    if (page instanceof Failure) {
      if (page.status === 401) signedOut();
      setState(page);
      return;
    }
    setItems((prev) => (cursor === null ? page.items : [...prev, ...page.items]));
    setNext(page.next);
    setState('ready');
  }

  useEffect(() => {
    void readPage(null);
  }, deps);
  return { items, next, state, more: () => next !== null && void readPage(next) };
}

/** Renders a Load: a loading line, the error box, or children with the data. */
export function Loaded<T>({ load, children }: { load: Load<T>; children: (data: T) => ComponentChildren }) {
  if (load.state === 'loading') return <p class="loading" role="status" aria-live="polite">Loading…</p>;
  if (load.state === 'error') return <ErrorBox failure={load.failure} />;
  return <>{children(load.data)}</>;
}

export function ErrorBox({ failure }: { failure: Failure }) {
  return (
    <div class="error" role="alert">
      <strong>{failure.status === null ? failure.title : `${failure.status} · ${failure.title}`}</strong>
      {failure.detail && <p>{failure.detail}</p>}
    </div>
  );
}

/** A JSON value, collapsed to one line until opened. */
export function JsonView({ value, open = false, label }: { value: unknown; open?: boolean; label?: string }) {
  return (
    <details class="json" open={open}>
      <summary>{label ?? preview(value)}</summary>
      <pre>{JSON.stringify(value, null, 2)}</pre>
    </details>
  );
}

function preview(value: unknown): string {
  const text = JSON.stringify(value) ?? 'undefined';
  return text.length > 120 ? `${text.slice(0, 117)}…` : text;
}

/**
 * The page's polite live region (role=status), always in the document so that a change to it is
 * read: what succeeded and state changes (the live events' connection). Refusals are alert boxes of
 * their own (role=alert), shown where they apply. A new message replaces the last, and the same text
 * twice is read twice (each message is a new node).
 */
export function LiveStatus({ message }: { message: Message | null }) {
  return (
    <div class="sr-only" role="status" aria-live="polite" data-testid="live-status">
      {message && <p key={message.round}>{message.text}</p>}
    </div>
  );
}

export type Message = { text: string; round: number };

/** What an answer says it does not claim, as the small print under it. */
export function NonClaims({ items }: { items: readonly string[] }) {
  return (
    <ul class="note">
      {items.map((n) => (
        <li key={n}>{n}</li>
      ))}
    </ul>
  );
}

/** A page's title and its content. */
export function Page({ title, actions, children }: { title: string; actions?: ComponentChildren; children: ComponentChildren }) {
  useEffect(() => {
    document.title = `${title} · gov console`;
  }, [title]);
  return (
    <section class="page" aria-labelledby="page-title">
      <header class="page-header">
        <h1 id="page-title" tabIndex={-1}>
          {title}
        </h1>
        {actions}
      </header>
      {children}
    </section>
  );
}

// The console's one way to the server: the typed client (src/client), on the page's own origin,
// authenticated by the HttpOnly session cookie set at sign-in (the page never holds a token), with
// the CSRF value echoed on every request that is not a GET, and the scope the user picked.
import { createClient, type ClientScope, type GovClient } from '../client/client.ts';
import { CSRF_COOKIE, CSRF_HEADER } from '../client/console-session.ts';

export type { ClientScope, GovClient };

/** The README's example scope: what a newcomer's first task is written in. */
export const DEFAULT_SCOPE: ClientScope = { tenant_id: 'acme', workspace_id: 'platform', project_id: 'billing' };

const SCOPE_KEY = 'gov.console.scope';

export function readScope(storage: Pick<Storage, 'getItem'> = localStorage): ClientScope {
  try {
    const saved = JSON.parse(storage.getItem(SCOPE_KEY) ?? 'null') as Partial<ClientScope> | null;
    if (saved && typeof saved.tenant_id === 'string' && typeof saved.workspace_id === 'string' && typeof saved.project_id === 'string') {
      return { tenant_id: saved.tenant_id, workspace_id: saved.workspace_id, project_id: saved.project_id };
    }
  } catch {
    // A value another version wrote: fall back to the default.
  }
  return { ...DEFAULT_SCOPE };
}

export function saveScope(scope: ClientScope, storage: Pick<Storage, 'setItem'> = localStorage): void {
  storage.setItem(SCOPE_KEY, JSON.stringify(scope));
}

/** The double-submit value the server set beside the session cookie (readable by the page by design). */
export function csrfToken(cookies: string = document.cookie): string | null {
  for (const part of cookies.split(';')) {
    const [name, ...value] = part.trim().split('=');
    if (name === CSRF_COOKIE) return decodeURIComponent(value.join('='));
  }
  return null;
}

/** fetch for the console: same-origin credentials, and the CSRF header on every unsafe method. */
export const consoleFetch: typeof fetch = (input, init) => {
  const headers = new Headers(init?.headers);
  const method = (init?.method ?? 'GET').toUpperCase();
  if (method !== 'GET' && method !== 'HEAD') {
    const token = csrfToken();
    if (token !== null) headers.set(CSRF_HEADER, token);
  }
  return fetch(input, { ...init, headers, credentials: 'same-origin' });
};

export function createConsoleClient(scope: ClientScope): GovClient {
  return createClient({ baseUrl: location.origin, token: null, fetch: consoleFetch, scope });
}

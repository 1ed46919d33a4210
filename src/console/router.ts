// Hash routes (#/tasks/t_1): the server serves one page, so every view has a link that survives a
// reload and the back button, and no path under /console needs a server route of its own.
import { useEffect, useState } from 'preact/hooks';

export type Route = { parts: string[]; query: URLSearchParams };

export function parseHash(hash: string): Route {
  const [path = '', query = ''] = hash.replace(/^#\/?/, '').split('?');
  return { parts: path.split('/').filter((p) => p !== '').map(decodeURIComponent), query: new URLSearchParams(query) };
}

export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseHash(location.hash));
  useEffect(() => {
    const onChange = () => setRoute(parseHash(location.hash));
    addEventListener('hashchange', onChange);
    return () => removeEventListener('hashchange', onChange);
  }, []);
  return route;
}

/** The href of a view: href('tasks', id) → '#/tasks/<id>'. */
export function href(...parts: string[]): string {
  return `#/${parts.map(encodeURIComponent).join('/')}`;
}

export function navigate(...parts: string[]): void {
  location.hash = href(...parts);
}

/** The href of a view with a query: hrefWith({ status: 'open' }, 'tasks') → '#/tasks?status=open'; empty values are left out. */
export function hrefWith(query: Record<string, string | number | null | undefined>, ...parts: string[]): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) if (value !== undefined && value !== null && value !== '') params.set(name, String(value));
  const text = params.toString();
  return text ? `${href(...parts)}?${text}` : href(...parts);
}

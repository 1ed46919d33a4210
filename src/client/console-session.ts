// The names the console page and the server agree on for the console's session (docs/console.md
// "Signing in"): the HttpOnly session cookie, the readable CSRF cookie, and the header the page
// copies the CSRF value into on every request that is not a GET.

export const SESSION_COOKIE = 'gov_session';
export const CSRF_COOKIE = 'gov_csrf';
export const CSRF_HEADER = 'X-CSRF-Token';

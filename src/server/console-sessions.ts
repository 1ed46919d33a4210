// The console's sign-in (docs/console.md "Signing in"): one-time login codes that `gov console`
// mints with the operator token, exchanged by the browser for a session cookie, so the bearer token
// never reaches the page. Memory only: a restart forgets every code and session (they die with the
// run). Secrets are kept and looked up by their sha256, never by themselves, and compared in
// constant time; both maps are capped so a caller cannot make them grow without bound.
import type { Context } from 'hono';
import { getCookie } from 'hono/cookie';
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { SESSION_COOKIE } from '../client/console-session.ts';

export { CSRF_COOKIE, CSRF_HEADER, SESSION_COOKIE } from '../client/console-session.ts';

/** A login code is good for one use within this long. */
export const LOGIN_CODE_TTL_MS = 60_000;
/** Live codes and sessions kept at most; past that the oldest is dropped. */
export const MAX_LOGIN_CODES = 100;
export const MAX_SESSIONS = 1_000;

/** What the browser holds after signing in: the session id (HttpOnly cookie) and its CSRF value. */
export type ConsoleSession = { id: string; csrf: string; createdAt: Date };

export type LoginCode = { code: string; expiresAt: Date };

export type ConsoleSessions = {
  /** A fresh single-use code, good for LOGIN_CODE_TTL_MS. */
  mintCode(): LoginCode;
  /** The code exchanged for a new session; null when it is unknown, used or expired (it is gone either way). */
  redeem(code: string): ConsoleSession | null;
  /** The live session a gov_session value names, or null. */
  session(id: string | undefined): ConsoleSession | null;
  /** The live session a request's gov_session cookie names, or null. */
  fromRequest(c: Context): ConsoleSession | null;
  /** Whether `given` is the session's CSRF value (constant time). */
  csrfMatches(session: ConsoleSession, given: string | undefined): boolean;
  /** Ends the session; false when it was not live. */
  end(id: string): boolean;
};

/** 32 random bytes, base64url: what a code, a session id and a CSRF value are. */
export function newSecret(): string {
  return randomBytes(32).toString('base64url');
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}

/** Equal strings, in time that does not depend on where they differ (both sides hashed first). */
export function secretEquals(a: string, b: string): boolean {
  return timingSafeEqual(digest(a), digest(b));
}

/** Insertion order is age order in a Map: drop the oldest entries until there is room for one more. */
function makeRoom<V>(map: Map<string, V>, cap: number): void {
  for (const key of map.keys()) {
    if (map.size < cap) return;
    map.delete(key);
  }
}

export function createConsoleSessions(clock: () => Date): ConsoleSessions {
  // Keyed by the hex sha256 of the secret: a lookup's timing says nothing about the secret itself.
  const codes = new Map<string, { expiresAt: number }>();
  const sessions = new Map<string, ConsoleSession>();
  const keyOf = (secret: string) => digest(secret).toString('hex');

  const session = (id: string | undefined): ConsoleSession | null => {
    if (id === undefined || id === '') return null;
    const found = sessions.get(keyOf(id));
    return found !== undefined && secretEquals(found.id, id) ? found : null;
  };

  return {
    mintCode() {
      const now = clock().getTime();
      for (const [key, entry] of codes) if (entry.expiresAt <= now) codes.delete(key);
      makeRoom(codes, MAX_LOGIN_CODES);
      const code = newSecret();
      const expiresAt = now + LOGIN_CODE_TTL_MS;
      codes.set(keyOf(code), { expiresAt });
      return { code, expiresAt: new Date(expiresAt) };
    },
    redeem(code) {
      if (code === '') return null;
      const key = keyOf(code);
      const entry = codes.get(key);
      if (entry === undefined) return null;
      // Single use: the code is spent by this attempt whatever its outcome.
      codes.delete(key);
      const now = clock();
      if (entry.expiresAt <= now.getTime()) return null;
      makeRoom(sessions, MAX_SESSIONS);
      const created: ConsoleSession = { id: newSecret(), csrf: newSecret(), createdAt: now };
      sessions.set(keyOf(created.id), created);
      return created;
    },
    session,
    fromRequest: (c) => session(getCookie(c, SESSION_COOKIE)),
    csrfMatches: (s, given) => given !== undefined && given !== '' && secretEquals(s.csrf, given),
    end(id) {
      const found = session(id);
      if (found === null) return false;
      sessions.delete(keyOf(found.id));
      return true;
    },
  };
}

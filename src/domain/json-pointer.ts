// RFC 6901 JSON pointers: one reference token escaped (`~` → `~0`, `/` → `~1`) or read back, and
// a pointer built from its tokens. Every error pointer, schema $ref and gate finding uses these.

export function escapePointer(token: string): string {
  return token.replace(/~/g, '~0').replace(/\//g, '~1');
}

export function unescapePointer(token: string): string {
  return token.replace(/~1/g, '/').replace(/~0/g, '~');
}

/** The pointer of a path of member names and array indexes ('' for the root). */
export function pointerFrom(tokens: readonly string[]): string {
  return tokens.map((token) => `/${escapePointer(token)}`).join('');
}

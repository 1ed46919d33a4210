// RFC 6901 JSON pointers: one reference token escaped (`~` → `~0`, `/` → `~1`) or read back, and
// a pointer built from its tokens. Every error pointer, schema $ref and gate finding uses these.

// Most tokens are plain member names: they are returned as they are, without a regex pass.
export function escapePointer(token: string): string {
  if (!token.includes('~') && !token.includes('/')) return token;
  return token.replace(/~/g, '~0').replace(/\//g, '~1');
}

export function unescapePointer(token: string): string {
  if (!token.includes('~')) return token;
  return token.replace(/~1/g, '/').replace(/~0/g, '~');
}

/** The pointer of a path of member names and array indexes ('' for the root). */
export function pointerFrom(tokens: readonly string[]): string {
  let pointer = '';
  for (const token of tokens) pointer += `/${escapePointer(token)}`;
  return pointer;
}

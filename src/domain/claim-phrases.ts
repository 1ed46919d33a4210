// Wording that asserts semantic correctness (docs/contract.md §8, class 2). Such a claim is
// blocked whatever it cites: integrity evidence can show what happened, never that it is correct.

/**
 * Matched case-insensitively as whole words; a space matches any run of white space and a hyphen
 * an optional hyphen or space ("bug-free", "bug free", "bugfree"). Deliberately broad: a negated
 * sentence ("is not guaranteed") is blocked too; it belongs in a claim of kind non_claim.
 */
export const SEMANTIC_CORRECTNESS_PHRASES: readonly string[] = [
  'semantically correct', 'semantic correctness', 'is correct', 'are correct', 'was correct', 'were correct',
  'is fully correct', 'is completely correct', 'is 100% correct', 'is entirely correct', 'provably correct',
  'proven correct', 'functionally correct', 'logically correct', 'correct by construction',
  'verified correct', 'verified to be correct', 'works correctly', 'behaves correctly', 'bug-free',
  'free of bugs', 'no bugs', 'error-free', 'free of errors', 'without any errors', 'flawless',
  'guarantee', 'guarantees', 'guaranteed',
];

const MATCHERS = SEMANTIC_CORRECTNESS_PHRASES.map((phrase) => {
  const body = phrase
    .split('')
    .map((ch) => (ch === ' ' ? '\\s+' : ch === '-' ? '[-\\s]?' : /[.*+?^${}()|[\]\\/]/.test(ch) ? `\\${ch}` : ch))
    .join('');
  return { phrase, re: new RegExp(`(?<![\\p{L}\\p{N}])${body}(?![\\p{L}\\p{N}])`, 'iu') };
});

/** The first listed phrase the text contains, or null. */
export function semanticCorrectnessPhrase(text: string): string | null {
  for (const m of MATCHERS) if (m.re.test(text)) return m.phrase;
  return null;
}

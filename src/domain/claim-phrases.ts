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

/**
 * Letters of other scripts that read as a Latin letter (Cyrillic, Greek, Armenian and a few Latin
 * forms; after Unicode's confusables.txt, reduced to the letters the phrases use): "ѕ" in "is" must
 * block as "s" does.
 */
const LOOK_ALIKES: Readonly<Record<string, string>> = {
  // Cyrillic
  а: 'a', в: 'b', е: 'e', ё: 'e', і: 'i', ї: 'i', ј: 'j', к: 'k', о: 'o', р: 'p', с: 'c', у: 'y', х: 'x', ѕ: 's', ԁ: 'd', ԛ: 'q', ԝ: 'w', һ: 'h', ӏ: 'l',
  А: 'a', В: 'b', Е: 'e', І: 'i', Ј: 'j', К: 'k', М: 'm', Н: 'h', О: 'o', Р: 'p', С: 'c', Т: 't', У: 'y', Х: 'x', Ѕ: 's', Ԁ: 'd', Ү: 'y', Һ: 'h', Ӏ: 'l',
  // Greek
  α: 'a', ε: 'e', ι: 'i', κ: 'k', ν: 'v', ο: 'o', ρ: 'p', τ: 't', υ: 'u', χ: 'x', γ: 'y', ω: 'w',
  Α: 'a', Β: 'b', Ε: 'e', Ζ: 'z', Η: 'h', Ι: 'i', Κ: 'k', Μ: 'm', Ν: 'n', Ο: 'o', Ρ: 'p', Τ: 't', Υ: 'y', Χ: 'x',
  // Armenian and Latin forms
  օ: 'o', ս: 'u', հ: 'h', ı: 'i', ȷ: 'j', ɑ: 'a', ɡ: 'g', ɩ: 'i',
};
const LOOK_ALIKE = new RegExp(`[${Object.keys(LOOK_ALIKES).join('')}]`, 'gu');
// A zero-width space separates words (it is where a line may break); the other default-ignorable
// code points (soft hyphen, joiners, variation selectors, bidi controls) and combining marks show
// nothing a reader would take for a letter of their own.
const ZERO_WIDTH_SPACE = /\u200b/g;
const UNSEEN = /[\p{Default_Ignorable_Code_Point}\p{M}]/gu;

/**
 * The text as a reader sees it, for the phrases to match: compatibility forms (full-width, math
 * letters, ligatures) as their plain letters, accents and invisible code points gone, look-alike
 * letters of other scripts as the Latin letter they imitate.
 */
function asRead(text: string): string {
  if (!/[^\x00-\x7f]/.test(text)) return text;
  return text.normalize('NFKD').replace(ZERO_WIDTH_SPACE, ' ').replace(UNSEEN, '').replace(LOOK_ALIKE, (ch) => LOOK_ALIKES[ch]!);
}

/** The first listed phrase the text contains as a reader sees it, or null. */
export function semanticCorrectnessPhrase(text: string): string | null {
  const read = asRead(text);
  for (const m of MATCHERS) if (m.re.test(read)) return m.phrase;
  return null;
}

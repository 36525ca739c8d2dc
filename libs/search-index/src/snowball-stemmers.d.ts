// snowball-stemmers ships no types: the one call used here.
declare module 'snowball-stemmers' {
  export function newStemmer(language: string): { stem(word: string): string };
}

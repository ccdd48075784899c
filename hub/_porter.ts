/**
 * Private: the Porter stemmer ({@linkcode stem}), the tool search's English stemmer, step by
 * step as M. F. Porter's 1980 paper gives it.
 *
 * @module
 */

const LETTERS = /^[a-z]+$/;

/** Whether `w[i]` is a consonant: not a vowel, and a `y` only after a vowel (or first). */
const isCons = (w: string, i: number): boolean => {
  const c = w[i];
  if (c === "a" || c === "e" || c === "i" || c === "o" || c === "u") return false;
  if (c === "y") return i === 0 ? true : !isCons(w, i - 1);
  return true;
};
/** m of the whole string `w` ([C](VC)^m[V]). */
const measure = (w: string): number => {
  let m = 0, i = 0;
  const n = w.length;
  while (i < n && isCons(w, i)) i++;
  while (i < n) {
    while (i < n && !isCons(w, i)) i++;
    if (i >= n) break;
    while (i < n && isCons(w, i)) i++;
    m++;
  }
  return m;
};
/** Whether the stem has a vowel (`*v*`). */
const hasVowel = (w: string) => {
  for (let i = 0; i < w.length; i++) if (!isCons(w, i)) return true;
  return false;
};
/** Whether it ends in a double consonant (`*d`). */
const doubleCons = (w: string) =>
  w.length >= 2 && w[w.length - 1] === w[w.length - 2] && isCons(w, w.length - 1);
/** Whether it ends consonant–vowel–consonant, the last not `w`, `x` or `y` (`*o`). */
const cvc = (w: string) => {
  const n = w.length;
  if (n < 3 || !isCons(w, n - 1) || isCons(w, n - 2) || !isCons(w, n - 3)) return false;
  const c = w[n - 1];
  return c !== "w" && c !== "x" && c !== "y";
};
type Rule = [string, string];
/** The longest suffix of `rules` that `w` ends with: replaced when the stem's m > `min`. */
const step = (
  w: string,
  rules: readonly Rule[],
  min: number,
  extra?: (stem: string, suffix: string) => boolean,
) => {
  let best: Rule | undefined;
  for (const rule of rules) {
    if (w.endsWith(rule[0]) && (best === undefined || rule[0].length > best[0].length)) best = rule;
  }
  if (best === undefined) return w;
  const stem = w.slice(0, w.length - best[0].length);
  if (measure(stem) > min && (extra === undefined || extra(stem, best[0]))) return stem + best[1];
  return w;
};
const STEP2: Rule[] = [
  ["ational", "ate"],
  ["tional", "tion"],
  ["enci", "ence"],
  ["anci", "ance"],
  ["izer", "ize"],
  ["abli", "able"],
  ["alli", "al"],
  ["entli", "ent"],
  ["eli", "e"],
  ["ousli", "ous"],
  ["ization", "ize"],
  ["ation", "ate"],
  ["ator", "ate"],
  ["alism", "al"],
  ["iveness", "ive"],
  ["fulness", "ful"],
  ["ousness", "ous"],
  ["aliti", "al"],
  ["iviti", "ive"],
  ["biliti", "ble"],
];
const STEP3: Rule[] = [
  ["icate", "ic"],
  ["ative", ""],
  ["alize", "al"],
  ["iciti", "ic"],
  ["ical", "ic"],
  ["ful", ""],
  ["ness", ""],
];
const STEP4: Rule[] = [
  "al",
  "ance",
  "ence",
  "er",
  "ic",
  "able",
  "ible",
  "ant",
  "ement",
  "ment",
  "ent",
  "ion",
  "ou",
  "ism",
  "ate",
  "iti",
  "ous",
  "ive",
  "ize",
].map((s) => [s, ""]);
/**
 * The Porter stemmer (M. F. Porter, "An algorithm for suffix stripping", 1980), step by step
 * as the paper gives it: plurals and `-ed`/`-ing` (1), `-y` (1c), the double suffixes (2, 3),
 * the single ones (4), a final `-e` and a double `l` (5). Words of other than the letters
 * `a`–`z`, and words of one or two letters, are returned as they are.
 *
 * @param word A lower-case word.
 * @returns Its stem.
 *
 * @example
 * ```ts
 * import { stem } from "./_porter.ts";
 *
 * if (stem("generalizations") !== "gener" || stem("running") !== "run") throw new Error();
 * ```
 */
export function stem(word: string): string {
  if (word.length <= 2 || !LETTERS.test(word)) return word;
  let w = word;
  // 1a
  if (w.endsWith("sses")) w = w.slice(0, -2);
  else if (w.endsWith("ies")) w = w.slice(0, -2);
  else if (w.endsWith("ss")) { /* kept */ }
  else if (w.endsWith("s")) w = w.slice(0, -1);
  // 1b
  let again = false;
  if (w.endsWith("eed")) { if (measure(w.slice(0, -3)) > 0) w = w.slice(0, -1); }
  else if (w.endsWith("ed") && hasVowel(w.slice(0, -2))) {
    w = w.slice(0, -2);
    again = true;
  } else if (w.endsWith("ing") && hasVowel(w.slice(0, -3))) {
    w = w.slice(0, -3);
    again = true;
  }
  if (again) {
    if (w.endsWith("at") || w.endsWith("bl") || w.endsWith("iz")) w += "e";
    else if (doubleCons(w) && !/[lsz]$/.test(w)) w = w.slice(0, -1);
    else if (measure(w) === 1 && cvc(w)) w += "e";
  }
  // 1c
  if (w.endsWith("y") && hasVowel(w.slice(0, -1))) w = `${w.slice(0, -1)}i`;
  w = step(w, STEP2, 0);
  w = step(w, STEP3, 0);
  w = step(w, STEP4, 1, (stem, suffix) => suffix !== "ion" || /[st]$/.test(stem));
  // 5a
  if (w.endsWith("e")) {
    const stem = w.slice(0, -1), m = measure(stem);
    if (m > 1 || (m === 1 && !cvc(stem))) w = stem;
  }
  // 5b
  if (measure(w) > 1 && doubleCons(w) && w.endsWith("l")) w = w.slice(0, -1);
  return w;
}

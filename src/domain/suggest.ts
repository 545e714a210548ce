/**
 * "Did you mean …?" for a value given where a fixed set of choices is expected (`svc trigger
 * invoice.payed`, `--status faild`): the closest choice by edit distance, if it is close enough to be
 * a typo rather than another word.
 */
export function closest(value: string, choices: readonly string[]): string | undefined {
  const given = value.toLowerCase();
  // Fewer edits than half the word, and at most 3: `payed` → `paid` yes, `foo` → `bar` no.
  const limit = Math.min(3, Math.max(1, Math.ceil(given.length / 2) - 1));
  let best: { choice: string; distance: number; prefix: number } | undefined;
  for (const choice of choices) {
    const lower = choice.toLowerCase();
    const distance = editDistance(given, lower);
    if (distance > limit) continue;
    // Ties go to the choice that starts like the value (`fsh` → `fish` rather than `zsh`).
    const prefix = commonPrefix(given, lower);
    if (!best || distance < best.distance || (distance === best.distance && prefix > best.prefix)) best = { choice, distance, prefix };
  }
  return best?.choice;
}

function commonPrefix(a: string, b: string): number {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return i;
}

/** ` Did you mean "invoice.paid"?`, or nothing. */
export function didYouMean(value: string, choices: readonly string[]): string {
  const match = closest(value, choices);
  return match ? ` Did you mean "${match}"?` : '';
}

/** Optimal string alignment distance (Levenshtein plus adjacent transpositions). */
export function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) v = Math.min(v, d[i - 2]![j - 2]! + 1);
      d[i]![j] = v;
    }
  }
  return d[a.length]![b.length]!;
}

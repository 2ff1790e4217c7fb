// "Did you mean" for unknown keys and enum values.

/**
 * Edit distance with adjacent transpositions counted as one edit
 * (optimal string alignment), so `cdw` is 1 away from `cwd`.
 * @param {string} a
 * @param {string} b
 * @returns {number}
 */
export function editDistance(a, b) {
  const d = Array.from({ length: a.length + 1 }, (_, i) => [i]);
  for (let j = 1; j <= b.length; j++) d[0][j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
      }
    }
  }
  return d[a.length][b.length];
}

/**
 * The closest candidate to `word`, if it is close enough to be a likely typo:
 * at most a third of the word's length away (at least 1), compared case-insensitively.
 * Ties go to the earlier candidate.
 * @param {string} word
 * @param {Iterable<string>} candidates
 * @returns {string|undefined}
 */
export function didYouMean(word, candidates) {
  const w = String(word).toLowerCase();
  const limit = Math.max(1, Math.floor(w.length / 3));
  let best;
  let bestDistance = Infinity;
  for (const c of candidates) {
    // Lengths further apart than the limit are further apart than that in edits, too: a
    // 3,000-character key costs no 3,000 x 20 table per candidate.
    if (Math.abs(w.length - c.length) > limit) continue;
    const dist = editDistance(w, c.toLowerCase());
    if (dist < bestDistance) {
      best = c;
      bestDistance = dist;
    }
  }
  return bestDistance <= limit ? best : undefined;
}

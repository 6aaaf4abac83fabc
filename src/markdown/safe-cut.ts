// Safe places to cut text to a length: never inside a code point, and never inside a grapheme
// cluster (an emoji ZWJ sequence, a letter and its combining marks) when one can be helped.

let segmenter: Intl.Segmenter | undefined;

const isHighSurrogate = (unit: number): boolean => unit >= 0xd800 && unit <= 0xdbff;
const isLowSurrogate = (unit: number): boolean => unit >= 0xdc00 && unit <= 0xdfff;

/** Moves `at` back by one unit if it would split a surrogate pair of `text`. */
export function codePointBoundary(text: string, at: number): number {
  if (at <= 0 || at >= text.length) return Math.max(0, Math.min(at, text.length));
  return isLowSurrogate(text.charCodeAt(at)) && isHighSurrogate(text.charCodeAt(at - 1))
    ? at - 1
    : at;
}

/**
 * The greatest cut position `<= at` (in UTF-16 units) that falls between grapheme clusters of
 * `text`; when the first cluster alone is longer than `at` (a very long ZWJ or combining run), the
 * greatest code-point boundary instead, so a cut always makes progress and never splits a pair.
 */
export function graphemeBoundary(text: string, at: number): number {
  if (at >= text.length) return text.length;
  if (at <= 0) return 0;
  segmenter ??= new Intl.Segmenter(undefined, { granularity: "grapheme" });
  // Only the clusters around the cut matter: segment a short window before it (a cluster longer
  // than the window is cut at a code point, which is the fallback anyway).
  const from = codePointBoundary(text, Math.max(0, at - 64));
  let best = -1;
  for (const { index } of segmenter.segment(text.slice(from, Math.min(text.length, at + 64)))) {
    const position = from + index;
    if (position > at) break;
    // The window's own start is not a boundary of `text` (it may fall inside a cluster).
    if (position > from || from === 0) best = position;
  }
  return best > 0 ? best : codePointBoundary(text, at);
}

/**
 * `text` cut to at most `max` UTF-16 units at a grapheme boundary (see `graphemeBoundary`).
 *
 * @example
 * safeSlice("ab👍🏽", 3); // "ab"
 */
export function safeSlice(text: string, max: number): string {
  return text.slice(0, graphemeBoundary(text, max));
}

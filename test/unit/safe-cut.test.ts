// Text cut to a length never breaks a code point nor a grapheme cluster: reply splitting, the
// stream's continuation cut and the webhook/topic truncation, fed emoji, ZWJ sequences and accents.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { splitMessage } from "../../src/context/actions.js";
import { cutPoint } from "../../src/context/stream.js";
import { graphemeBoundary, safeSlice } from "../../src/markdown/safe-cut.js";
import { truncate } from "../../src/webhooks/config.js";

const CLUSTERS = [
  "a",
  "Z",
  "e\u0301", // e + combining acute
  "o\u0308\u0323", // o + two combining marks
  "👍",
  "👍🏽",
  "👨‍👩‍👧‍👦", // a ZWJ family: 7 code points, 11 units
  "🇫🇷",
  "❤️",
  "漢",
];
const segmenter = new Intl.Segmenter(undefined, { granularity: "grapheme" });
const graphemes = (s: string) => [...segmenter.segment(s)].map((g) => g.segment);
const wholeClusters = (s: string) => graphemes(s).every((g) => CLUSTERS.includes(g));
const loneSurrogate = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const text = fc
  .array(fc.constantFrom(...CLUSTERS), { minLength: 1, maxLength: 400 })
  .map((a) => a.join(""));

describe("cuts at a length", () => {
  it("splitMessage keeps every cluster whole and loses nothing (property)", () => {
    fc.assert(
      fc.property(text, fc.integer({ min: 7, max: 60 }), (input, max) => {
        const parts = splitMessage(input, max);
        expect(parts.join("")).toBe(input);
        for (const part of parts) {
          expect([...part].length).toBeLessThanOrEqual(max);
          expect(wholeClusters(part)).toBe(true);
          expect(loneSurrogate.test(part)).toBe(false);
        }
      }),
      { numRuns: 300 },
    );
  });

  it("the stream's hard cut falls between clusters, within the limit (property)", () => {
    fc.assert(
      fc.property(text, fc.integer({ min: 11, max: 80 }), (input, limit) => {
        const cut = cutPoint(input, limit);
        expect(cut).toBeGreaterThan(0);
        expect(cut).toBeLessThanOrEqual(limit);
        expect(wholeClusters(input.slice(0, cut))).toBe(true);
        expect(wholeClusters(input.slice(cut))).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it("truncate (topics, webhook content) ends on a whole cluster before its marker (property)", () => {
    fc.assert(
      fc.property(text, fc.integer({ min: 8, max: 60 }), (input, max) => {
        const out = truncate(input, max);
        expect([...out].length).toBeLessThanOrEqual(max);
        const head = out.endsWith("…") && out !== input ? out.slice(0, -1) : out;
        expect(wholeClusters(head)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it("a line of emoji cut at an odd length never yields U+FFFD", () => {
    const line = "😀".repeat(20_000); // 40,000 units
    const parts = splitMessage(line, 10_001);
    expect(parts.join("")).toBe(line);
    expect(Buffer.from(Buffer.from(parts[0]!, "utf8").toString("utf8")).includes("\uFFFD")).toBe(
      false,
    );
    const cut = cutPoint(line, 10_001);
    expect(cut).toBe(10_000);
    expect(Buffer.from(line.slice(0, cut), "utf8").toString("utf8")).not.toContain("\uFFFD");
  });

  it("a cluster longer than the cut falls back to a code point, still making progress", () => {
    const long = "a" + "\u0301".repeat(200);
    expect(graphemeBoundary(long, 100)).toBe(100);
    expect(safeSlice("ab👍🏽", 3)).toBe("ab");
    expect(safeSlice("ab👍🏽", 6)).toBe("ab👍🏽");
  });
});

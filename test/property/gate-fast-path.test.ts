// Property tests of the gate's fast paths: the `@` scan before the mention regex decides as `^\s*@` does; the trims skipped when nothing is to trim.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  address,
  startsWithAt,
  stripLeadingMention,
  type AddressOptions,
} from "../../src/dispatch/gate.js";

const bot = { userId: 6, email: "bot-bot@sandbox.test", fullName: "Topic Bot" };

/** Leading runs of every kind of white space the regex's `\s` knows, and near misses. */
const piece = fc.constantFrom(
  " ",
  "\t",
  "\n",
  "\r",
  "\v",
  "\f",
  "\u00a0",
  "\u1680",
  "\u2003",
  "\u2028",
  "\u202f",
  "\u3000",
  "\ufeff",
  "\u200b", // zero-width space: not white space to `\s`
  "\u001c", // a control character `\s` does not match
  "@",
  "@**Topic Bot**",
  "@_**Topic Bot**",
  "!",
  "a",
  "é",
  "\u{1f600}",
);
const content = fc.array(piece, { maxLength: 8 }).map((parts) => parts.join(""));

describe("the gate's leading-`@` fast path", () => {
  it("says a text starts with `@` (after white space) exactly when `^\\s*@` matches", () => {
    fc.assert(
      fc.property(content, (text) => {
        expect(startsWithAt(text)).toBe(/^\s*@/.test(text));
      }),
      { numRuns: 2000 },
    );
  });

  it("still finds a mention after any white space the regex allows", () => {
    for (const space of ["", " ", "\n", "\u00a0", "\u3000", "\ufeff"]) {
      const addressing = address(`${space}@**Topic Bot** ping`, {
        isDirect: false,
        bot,
        prefix: "!",
      });
      expect(addressing).toEqual({ via: "mention", isMention: true, text: "ping" });
    }
    expect(address("\u200b@**Topic Bot** ping", { isDirect: false, bot, prefix: "!" }).via).toBe(
      null,
    );
  });
});

/** `address` for `respondTo: "addressed"` as it read before its trims got their fast path. */
function addressWithTrims(content: string, options: AddressOptions) {
  const afterMention = stripLeadingMention(content, options.bot);
  const isMention = afterMention !== undefined;
  let text = (afterMention ?? content).trim();
  const hasPrefix = options.prefix !== "" && text.startsWith(options.prefix);
  if (hasPrefix) text = text.slice(options.prefix.length).trimStart();
  const via = options.isDirect ? "direct" : isMention ? "mention" : hasPrefix ? "prefix" : null;
  return { via, isMention, text };
}

describe("the gate's trims", () => {
  it("address what `trim()` and `trimStart()` would, on texts with and without white space at either end", () => {
    const prefix = fc.constantFrom("!", "", "/");
    fc.assert(
      fc.property(content, content, prefix, fc.boolean(), (start, end, prefix, isDirect) => {
        for (const text of [`${start}!add 1 2${end}`, `${start}${end}`, `${prefix}${end}`]) {
          const options = { isDirect, bot, prefix };
          expect(address(text, options)).toEqual(addressWithTrims(text, options));
        }
      }),
      { numRuns: 2000 },
    );
  });
});

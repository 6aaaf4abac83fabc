import { describe, expect, it } from "vitest";
import { highlightHtml, parseNarrow, searchWords } from "../../src/sandbox/narrow.js";
import { htmlDiff } from "../../src/sandbox/edits.js";
import { sanitizeFilename } from "../../src/sandbox/uploads.js";
import { resolveEmoji, unicodeCode } from "../../src/sandbox/emoji.js";
import { clientNameOf, defaultReadBySender } from "../../src/sandbox/send.js";
import { SandboxError } from "../../src/sandbox/errors.js";

describe("narrow parsing", () => {
  it("accepts pairs and objects, maps legacy operator names, keeps negation", () => {
    expect(
      parseNarrow([
        ["stream", "general"],
        { operator: "subject", operand: "x", negated: true },
        ["pm-with", "a@b.c"],
      ]),
    ).toEqual([
      { operator: "channel", operand: "general", negated: false },
      { operator: "topic", operand: "x", negated: true },
      { operator: "dm", operand: "a@b.c", negated: false },
    ]);
  });

  it("refuses unknown operators and operands, naming them", () => {
    expect(() => parseNarrow([["colour", "x"]])).toThrow(/colour/);
    expect(() => parseNarrow([["is", "shiny"]])).toThrow(/shiny/);
    expect(() => parseNarrow([["has", "cats"]])).toThrow(SandboxError);
  });

  it("splits search text into words and quoted phrases; highlights outside tags only", () => {
    expect(searchWords('Apple "pie crust" x')).toEqual(["apple", "pie crust", "x"]);
    expect(highlightHtml('<a href="apple">apple</a>', ["apple"])).toBe(
      '<a href="apple"><span class="highlight">apple</span></a>',
    );
  });
});

describe("htmlDiff", () => {
  it("marks inserted and deleted words", () => {
    expect(htmlDiff("<p>a b c</p>", "<p>a x c</p>")).toBe(
      '<p>a <span class="highlight_text_inserted">x </span><span class="highlight_text_deleted">b </span>c</p>',
    );
  });
});

describe("sanitizeFilename", () => {
  it("keeps word characters, dots and dashes; collapses spaces; never empty", () => {
    expect(sanitizeFilename("../etc/pass wd?.txt")).toBe("pass-wd.txt");
    expect(sanitizeFilename("Ünïcødé name.pdf")).toBe("Ünïcødé-name.pdf");
    expect(sanitizeFilename("..")).toBe("uploaded-file");
  });
});

describe("emoji", () => {
  it("encodes code points as dash-separated hex without variation selectors", () => {
    expect(unicodeCode("👍")).toBe("1f44d");
    expect(unicodeCode("❤️")).toBe("2764");
  });

  it("resolves names, aliases and codes in each namespace", () => {
    const custom = new Map([["7", { id: "7", name: "party_parrot", deactivated: false }]]);
    expect(resolveEmoji(custom, "+1")).toEqual({
      emojiName: "+1",
      emojiCode: "1f44d",
      reactionType: "unicode_emoji",
    });
    expect(resolveEmoji(custom, "party_parrot").reactionType).toBe("realm_emoji");
    expect(resolveEmoji(custom, "zulip").reactionType).toBe("service_extra_emoji");
    expect(() => resolveEmoji(custom, "nope_nope")).toThrow(SandboxError);
    expect(() => resolveEmoji(custom, "x", "99", "realm_emoji")).toThrow(SandboxError);
    expect(resolveEmoji(custom, "octopus", "1f419")).toEqual({
      emojiName: "octopus",
      emojiCode: "1f419",
      reactionType: "unicode_emoji",
    });
    expect(() => resolveEmoji(custom, "octopus", "1f680")).toThrow(/Invalid emoji name/);
  });
});

describe("client names and the read_by_sender heuristic", () => {
  it("reads the product name from the User-Agent", () => {
    expect(clientNameOf("ZulipMobile/27.231 (Android 14)")).toBe("ZulipMobile");
    expect(clientNameOf("topicbot")).toBe("topicbot");
    expect(clientNameOf("ZulipPython/0.9.0 (Ubuntu; 22.04)")).toBe("ZulipPython");
    expect(clientNameOf(undefined)).toBe("Unspecified");
    expect(clientNameOf("")).toBe("Unspecified");
  });

  it("marks messages read for their sender only from clients people type into", () => {
    for (const name of [
      "website",
      "ZulipMobile",
      "ZulipElectron",
      "ZulipTerminal",
      "Zulip Desktop App",
    ])
      expect(defaultReadBySender(name), name).toBe(true);
    for (const name of ["topicbot", "ZulipPython", "Internal", "Unspecified", "curl"])
      expect(defaultReadBySender(name), name).toBe(false);
  });
});

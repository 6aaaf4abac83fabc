// The sandbox's emoji names are the server's: a sample of Zulip's table pinned to its codes, the checks and `:name:` rendering.
import { describe, expect, it } from "vitest";
import { resolveEmoji, unicodeCodeOfName, unicodeNameOfCode } from "../../src/sandbox/emoji.js";
import { SandboxError } from "../../src/sandbox/errors.js";
import { renderMarkdown } from "../../src/sandbox/markdown.js";

const noCustomEmoji = new Map();

describe("Zulip's emoji name table", () => {
  it.each([
    ["wave", "1f44b"],
    ["hello", "1f44b"],
    ["slight_smile", "1f642"],
    ["smile", "263a"],
    ["joy", "1f602"],
    ["clap", "1f44f"],
    ["pray", "1f64f"],
    ["thinking", "1f914"],
    ["muscle", "1f4aa"],
    ["ok", "1f44c"],
    ["heart_eyes", "1f60d"],
    ["big_smile", "1f604"],
    ["rofl", "1f923"],
    ["working_on_it", "1f6e0"],
    ["x", "274e"],
    ["one", "0031-20e3"],
    ["+1", "1f44d"],
    ["thumbs_up", "1f44d"],
    ["-1", "1f44e"],
    ["heart", "2764"],
    ["tada", "1f389"],
    ["check", "2705"],
    ["octopus", "1f419"],
    ["100", "1f4af"],
  ])("%s is %s", (name, code) => {
    expect(unicodeCodeOfName(name)).toBe(code);
    expect(resolveEmoji(noCustomEmoji, name)).toEqual({
      emojiName: name,
      emojiCode: code,
      reactionType: "unicode_emoji",
    });
  });

  it("knows canonical names by code, and not Unicode's own names", () => {
    expect(unicodeNameOfCode("1f44d")).toBe("+1");
    expect(unicodeNameOfCode("1f642")).toBe("slight_smile");
    expect(unicodeCodeOfName("thumbs_down")).toBe("1f44e");
    expect(unicodeCodeOfName("red_heart")).toBeUndefined();
    expect(unicodeCodeOfName("grinning_squinting_face")).toBeUndefined();
  });

  it("zulip is the extra emoji under either spelling of its type", () => {
    expect(resolveEmoji(noCustomEmoji, "zulip")).toMatchObject({ emojiCode: "zulip" });
    expect(resolveEmoji(noCustomEmoji, "zulip", "zulip", "zulip_extra_emoji").reactionType).toBe(
      "zulip_extra_emoji",
    );
    expect(() => resolveEmoji(noCustomEmoji, "wave", "zulip", "zulip_extra_emoji")).toThrow(
      "Invalid emoji name.",
    );
  });

  it("refuses a name that is not the code's, and a code that is no emoji", () => {
    expect(() => resolveEmoji(noCustomEmoji, "wave", "1f44d")).toThrow("Invalid emoji name.");
    expect(() => resolveEmoji(noCustomEmoji, "wave", "ffff")).toThrow("Invalid emoji code.");
    expect(() => resolveEmoji(noCustomEmoji, "not_an_emoji")).toThrow(SandboxError);
  });

  it("renders :name: as the server does, and leaves unknown names and word:colons alone", () => {
    expect(renderMarkdown("hi :wave:")).toBe(
      '<p>hi <span aria-label="wave" class="emoji emoji-1f44b" role="img" title="wave">:wave:</span></p>',
    );
    expect(renderMarkdown(":working_on_it:")).toContain('title="working on it"');
    expect(renderMarkdown(":zulip:")).toContain('<img alt=":zulip:" class="emoji"');
    expect(renderMarkdown("a:wave: :nope_nope: 10:30:")).toBe("<p>a:wave: :nope_nope: 10:30:</p>");
  });
});

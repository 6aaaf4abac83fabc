import { describe, expect, it } from "vitest";
import { emojiOfCode, emojiOfName, sanitizeMessageHtml } from "../../src/dev/web/render.js";
import { readWidget, voteFor } from "../../src/dev/web/widgets.js";
import { renderMarkdown } from "../../src/sandbox/markdown.js";
import { HTML_ATTACKS } from "../helpers/html-attacks.js";

describe("the console's message HTML", () => {
  it("keeps the server's Markdown and shows Unicode emoji spans as the emoji", () => {
    const html = renderMarkdown("**Deploy** done :check: :thumbs_up: `v1.2`\n> quoted");
    const safe = sanitizeMessageHtml(html);
    expect(safe).toContain("<strong>Deploy</strong>");
    expect(safe).toContain("<code>v1.2</code>");
    expect(safe).toContain("<blockquote>");
    expect(safe).toMatch(/<span [^>]*class="emoji emoji-2705"[^>]*>✅<\/span>/);
    expect(safe).toMatch(/class="emoji emoji-1f44d"[^>]*>👍<\/span>/);
    expect(safe).not.toContain(":thumbs_up:</span>");
    expect(emojiOfName("thumbs_up")).toBe("👍");
    expect(emojiOfCode("1f1fa-1f1f8")).toBe("🇺🇸");
    expect(emojiOfCode("zzz")).toBeUndefined();
  });

  it("keeps <time:…> as a <time datetime> for the page to show locally", () => {
    const safe = sanitizeMessageHtml(renderMarkdown("at <time:2024-05-01T10:00:00+02:00> sharp"));
    expect(safe).toBe(
      '<p>at <time datetime="2024-05-01T08:00:00Z">2024-05-01T10:00:00+02:00</time> sharp</p>',
    );
    expect(renderMarkdown("<time:someday>")).toContain(
      '<span class="timestamp-error">Invalid time format: someday</span>',
    );
  });

  it("drops scripts, handlers, foreign images and unsafe links; re-balances tags", () => {
    const hostile = [
      '<p onclick="x()">hi<script>alert(1)</script><style>*{}</style>',
      '<a href="javascript:alert(1)">a</a><a href="java\tscript:x">b</a><a href="/\\evil.test">c</a>',
      '<a href="https://ok.test/x?a=1&amp;b=2" target="_self">d</a>',
      '<img src="https://tracker.test/p.gif" onerror="x()"><img src="/user_uploads/1/a.png" alt="a">',
      '<iframe src="https://x.test"></iframe><svg><script>1</script></svg>',
      '<div class="x" style="position:fixed">e</span></em>',
      'a < b & c <!-- comment --> <b">broken',
    ].join("");
    const safe = sanitizeMessageHtml(hostile);
    expect(safe).not.toMatch(/script|onclick|onerror|style|iframe|svg|javascript|tracker|evil/i);
    expect(safe).toContain("<p>hi<a>a</a><a>b</a><a>c</a>");
    expect(safe).toContain(
      '<a href="https://ok.test/x?a=1&amp;b=2" target="_blank" rel="noopener noreferrer">d</a>',
    );
    expect(safe).toContain('<img /><img src="/user_uploads/1/a.png" alt="a" />');
    // A <div> closes the open <p>, as in a browser; stray end tags are dropped.
    expect(safe).toContain('</p><div class="x">e');
    expect(safe).toContain("a &lt; b &amp; c");
    // Whatever was left open is closed, in order.
    expect(safe.endsWith("broken</div>")).toBe(true);
  });

  it("keeps a custom emoji image from the server's own paths", () => {
    const html =
      '<p><img alt=":green_tick:" class="emoji" src="/user_avatars/2/emoji/images/3.png" title="green tick"></p>';
    expect(sanitizeMessageHtml(html)).toBe(html.replace('"></p>', '" /></p>'));
  });
});

describe("the console's message HTML against classic sanitizer attacks", () => {
  const TAGS = new Set(
    "a abbr b blockquote br code del details div em h1 h2 h3 h4 h5 h6 hr i img li ol p pre s span strong sub summary sup table tbody td th thead time tr ul".split(
      " ",
    ),
  );
  const ATTRIBUTES = new Set(
    "class title aria-label role data-user-id data-user-group-id data-stream-id data-code-language href target rel src alt width height datetime start align".split(
      " ",
    ),
  );
  /** A tag as the sanitizer writes it: lower-case allowed name, allowed attributes, double-quoted values with no `"`, `<` or `>` inside. */
  const WRITTEN_TAG = /^<(\/?)([a-z][a-z0-9]*)((?:\s[a-z-]+="[^"<>]*")*)\s*(\/?)>/;

  /** Every `<` of the output opens an allowed tag with allowed attributes; links and images only to safe places. */
  function expectInert(safe: string): void {
    let at = safe.indexOf("<");
    while (at !== -1) {
      const tag = WRITTEN_TAG.exec(safe.slice(at));
      expect(tag, `a tag at ${at} of ${safe}`).not.toBeNull();
      expect(TAGS.has(tag![2]!), `<${tag![2]}> in ${safe}`).toBe(true);
      for (const [, name, value] of tag![3]!.matchAll(/\s([a-z-]+)="([^"]*)"/g)) {
        expect(ATTRIBUTES.has(name!), `${name} in ${safe}`).toBe(true);
        const url = value!.replace(/&amp;/g, "&");
        if (name === "href")
          expect(url).toMatch(/^(https?:\/\/|mailto:|#|\/(?![/\\])|[^:/?#\\]*([/?#]|$))/i);
        if (name === "src")
          expect(url).toMatch(
            /^(\/(user_uploads|user_avatars|static|external_content|thumbnail)\/|data:image\/(png|gif|jpeg|webp);base64,)/,
          );
      }
      at = safe.indexOf("<", at + 1);
    }
  }

  it.each(HTML_ATTACKS)("%s", (_name, attack, shown) => {
    const safe = sanitizeMessageHtml(attack);
    expect(safe).toBe(shown);
    expectInert(safe);
  });

  it("keeps every output inert, whatever the attacks are glued to", () => {
    const all = HTML_ATTACKS.map(([, attack]) => attack);
    for (const glued of [all.join(""), all.join("<p>"), `<table><tr><td>${all.join("<td>")}`])
      expectInert(sanitizeMessageHtml(glued));
  });
});

describe("the console's widgets", () => {
  const widget = (senderId: number, content: unknown) => ({
    sender_id: senderId,
    msg_type: "widget",
    content: JSON.stringify(content),
  });

  it("reads a zform's choices", () => {
    const zform = widget(7, {
      widget_type: "zform",
      extra_data: {
        type: "choices",
        heading: "Deploy v1.2?",
        choices: [
          { type: "multiple_choice", short_name: "A", long_name: "Approve", reply: "!approve" },
        ],
      },
    });
    expect(readWidget([zform], 7)).toEqual({
      type: "choices",
      heading: "Deploy v1.2?",
      choices: [{ shortName: "A", longName: "Approve", reply: "!approve" }],
    });
    // A widget submessage from someone other than the sender is no widget of the message.
    expect(readWidget([zform], 8)).toBeUndefined();
  });

  it("tallies a poll as the web client does: votes toggle, new options, only the author's question", () => {
    const subs = [
      widget(7, {
        widget_type: "poll",
        extra_data: { question: "Lunch?", options: ["Pizza", "Soup"] },
      }),
      widget(8, { type: "vote", key: "canned,0", vote: 1 }),
      widget(9, { type: "vote", key: "canned,0", vote: 1 }),
      widget(9, { type: "vote", key: "canned,0", vote: -1 }),
      widget(9, { type: "new_option", idx: 1, option: "Tacos" }),
      widget(9, { type: "new_option", idx: 2, option: "Pizza" }),
      widget(9, { type: "vote", key: "9,1", vote: 1 }),
      widget(9, { type: "vote", key: "nope", vote: 1 }),
      widget(8, { type: "question", question: "Hijacked?" }),
      widget(7, { type: "question", question: "Lunch today?" }),
    ];
    const poll = readWidget(subs, 7)!;
    expect(poll).toEqual({
      type: "poll",
      question: "Lunch today?",
      options: [
        { key: "canned,0", option: "Pizza", voters: [8] },
        { key: "canned,1", option: "Soup", voters: [] },
        { key: "9,1", option: "Tacos", voters: [9] },
      ],
    });
    expect(voteFor(poll, "canned,0", 8)).toEqual({ type: "vote", key: "canned,0", vote: -1 });
    expect(voteFor(poll, "canned,0", 9)).toEqual({ type: "vote", key: "canned,0", vote: 1 });
    expect(voteFor(poll, "missing", 9)).toBeUndefined();
  });
});

describe("the console's image proxy", () => {
  it("fetches only the server's image paths, even through encoded dot segments", async () => {
    const { fetchUploadAs } = await import("../../src/dev/world.js");
    const asked: string[] = [];
    const get = async (url: URL) => {
      asked.push(url.toString());
      return { ok: true, contentType: "image/png", data: Buffer.from("png") };
    };
    const site = "http://127.0.0.1:9";
    expect(await fetchUploadAs(site, "/user_uploads/%2e%2e/api/v1/users/me", get)).toBe(undefined);
    expect(await fetchUploadAs(site, "/api/v1/users/me", get)).toBeUndefined();
    expect(await fetchUploadAs(site, "//evil.test/user_uploads/x", get)).toBeUndefined();
    const image = await fetchUploadAs(site, "/user_uploads/1/ab/dot.png", get);
    expect(image?.contentType).toBe("image/png");
    expect(asked).toEqual([`${site}/user_uploads/1/ab/dot.png`]);
  });
});

describe("the console's image proxy on the sandbox world", () => {
  it("fetches an upload as the speaker, through the speaker's client, and nothing outside the image paths", async () => {
    const { startSandboxWorld } = await import("../../src/dev/sandbox-world.js");
    const world = await startSandboxWorld({ port: 0 });
    try {
      const { url } = await world
        .client()
        .uploads.upload({ file: Buffer.from("a picture"), filename: "pic.png" });
      const image = await world.fetchUpload(url);
      expect(image?.data.toString()).toBe("a picture");
      expect(await world.fetchUpload("/api/v1/users/me")).toBeUndefined();
      expect(await world.fetchUpload("/user_uploads/1/no/such/file.png")).toBeUndefined();
    } finally {
      await world.close();
    }
  });
});

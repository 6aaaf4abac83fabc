// Mention rendering and mention flags ported from the server's zerver/tests/test_markdown.py (UserMentionPattern, MENTIONS_RE).
import { expect, it } from "vitest";
import { describeContract, needSandbox } from "./servers.js";

describeContract("mentions (upstream test_markdown.py)", (server) => {
  /** Posts `content` as the bot to general and answers its HTML and Mia's flags. */
  const render = async (content: string) => {
    const { id } = await server()
      .client()
      .messages.send({ type: "channel", to: "general", topic: "mentions", content });
    const html = (await server().client().messages.get({ message_id: id })).message.content;
    const flags =
      (
        (await server().client("member").messages.get({ message_id: id })).message as {
          flags?: string[];
        }
      ).flags ?? [];
    return { html, flags };
  };
  const mia = () => server().sandbox!.user("mia");

  // upstream: test_markdown.py MarkdownMentionTest.test_mention_single
  it("renders @**Name** as a mention span and flags the user", async (ctx) => {
    needSandbox(ctx, server());
    const { html, flags } = await render("@**Mia Member**");
    expect(html).toBe(
      `<p><span class="user-mention" data-user-id="${mia().userId}">@Mia Member</span></p>`,
    );
    expect(flags).toContain("mentioned");
  });

  // upstream: test_markdown.py MarkdownMentionTest.test_mention_single (case-insensitive full name)
  it("matches the full name case-insensitively and shows the real name", async (ctx) => {
    needSandbox(ctx, server());
    const { html } = await render("@**mia member**");
    expect(html).toContain(`data-user-id="${mia().userId}">@Mia Member</span>`);
  });

  // upstream: test_markdown.py MarkdownMentionTest.test_mention_single (the @**|id** form)
  it("renders @**|id** as the user's mention", async (ctx) => {
    needSandbox(ctx, server());
    const { html, flags } = await render(`@**|${mia().userId}**`);
    expect(html).toBe(
      `<p><span class="user-mention" data-user-id="${mia().userId}">@Mia Member</span></p>`,
    );
    expect(flags).toContain("mentioned");
  });

  // upstream: test_markdown.py MarkdownMentionTest.test_mention_single (the @**Name|id** form)
  it("renders @**Name|id** when the name is the user's", async (ctx) => {
    needSandbox(ctx, server());
    const { html } = await render(`@**Mia Member|${mia().userId}**`);
    expect(html).toContain(`data-user-id="${mia().userId}">@Mia Member</span>`);
  });

  // upstream: test_markdown.py MarkdownMentionTest.test_mention_with_invalid_name_and_id (name does not match the ID)
  it("leaves @**Old Name|id** as text when the name is not the user's", async (ctx) => {
    needSandbox(ctx, server());
    const { html, flags } = await render(`@**Old Name|${mia().userId}**`);
    expect(html).not.toContain("user-mention");
    expect(html).toBe(`<p>@<strong>Old Name|${mia().userId}</strong></p>`);
    expect(flags).not.toContain("mentioned");
  });

  // upstream: test_markdown.py MarkdownMentionTest.test_mention_invalid
  it("leaves a mention of nobody as text", async (ctx) => {
    needSandbox(ctx, server());
    const { html } = await render("Hey @**Nonexistent User**");
    expect(html).toBe("<p>Hey @<strong>Nonexistent User</strong></p>");
  });

  // upstream: test_markdown.py MarkdownMentionTest.test_mention_silent
  it("renders @_**Name** as a silent span without @ and without the flag", async (ctx) => {
    needSandbox(ctx, server());
    const { html, flags } = await render("@_**Mia Member**");
    expect(html).toBe(
      `<p><span class="user-mention silent" data-user-id="${mia().userId}">Mia Member</span></p>`,
    );
    expect(flags).not.toContain("mentioned");
  });

  // upstream: test_markdown.py MarkdownMentionTest.test_mention_preceded_by_non_space (MENTIONS_RE lookbehind)
  it("leaves .@**Name** and a@**Name** as text, without the flag", async (ctx) => {
    needSandbox(ctx, server());
    for (const content of [".@**Mia Member**", "a@**Mia Member**"]) {
      const { html, flags } = await render(content);
      expect(html).not.toContain("user-mention");
      expect(html).toContain("@<strong>Mia Member</strong>");
      expect(flags).not.toContain("mentioned");
    }
  });

  // upstream: test_markdown.py MarkdownMentionTest.test_mention_preceded_by_allowed_punctuation
  it("accepts a mention after a quote, a bracket or a slash", async (ctx) => {
    needSandbox(ctx, server());
    for (const content of [
      '"@**Mia Member**"',
      "(@**Mia Member**)",
      "[@**Mia Member**]",
      "/@**Mia Member**",
    ]) {
      const { html, flags } = await render(content);
      expect(html, content).toContain(`data-user-id="${mia().userId}"`);
      expect(flags).toContain("mentioned");
    }
  });

  // upstream: test_markdown.py MarkdownMentionTest.test_mention_wildcard
  it("renders @**all** as a wildcard mention span", async (ctx) => {
    needSandbox(ctx, server());
    const { html, flags } = await render("@**all** test");
    expect(html).toBe('<p><span class="user-mention" data-user-id="*">@all</span> test</p>');
    expect(flags).toContain("stream_wildcard_mentioned");
  });

  // upstream: test_markdown.py MarkdownMentionTest.test_mention_everyone / test_mention_stream / test_mention_channel
  it("renders @**everyone**, @**stream** and @**channel** as wildcard spans", async (ctx) => {
    needSandbox(ctx, server());
    for (const name of ["everyone", "stream", "channel"]) {
      const { html, flags } = await render(`@**${name}** test`);
      expect(html).toBe(`<p><span class="user-mention" data-user-id="*">@${name}</span> test</p>`);
      expect(flags).toContain("stream_wildcard_mentioned");
      expect(flags).toContain("wildcard_mentioned");
    }
  });

  // upstream: test_markdown.py MarkdownMentionTest.test_mention_topic_wildcard
  it("renders @**topic** as a topic-mention span", async (ctx) => {
    needSandbox(ctx, server());
    // Topic wildcards reach the topic's participants.
    await server()
      .client("member")
      .messages.send({ type: "channel", to: "general", topic: "mentions", content: "here" });
    const { html, flags } = await render("@**topic** test");
    expect(html).toBe('<p><span class="topic-mention">@topic</span> test</p>');
    expect(flags).toContain("topic_wildcard_mentioned");
  });

  // upstream: test_markdown.py MarkdownMentionTest.test_silent_wildcard_mention
  it("renders silent wildcards without @ and sets no wildcard flag", async (ctx) => {
    needSandbox(ctx, server());
    const all = await render("@_**all**");
    expect(all.html).toBe('<p><span class="user-mention silent" data-user-id="*">all</span></p>');
    expect(all.flags).not.toContain("stream_wildcard_mentioned");
    const topic = await render("@_**topic**");
    expect(topic.html).toBe('<p><span class="topic-mention silent">topic</span></p>');
    expect(topic.flags).not.toContain("topic_wildcard_mentioned");
  });

  // upstream: test_markdown.py MarkdownMentionTest.test_mention_wildcard (wildcards are lower case)
  it("treats @**ALL** as no wildcard", async (ctx) => {
    needSandbox(ctx, server());
    const { html, flags } = await render("@**ALL**");
    expect(html).toBe("<p>@<strong>ALL</strong></p>");
    expect(flags).not.toContain("stream_wildcard_mentioned");
  });

  // upstream: test_markdown.py MarkdownMentionTest.test_mention_multiple
  it("renders several mentions in one message", async (ctx) => {
    needSandbox(ctx, server());
    const adam = server().sandbox!.user("adam");
    const { html } = await render("@**Mia Member** and @**Adam Admin**, check this out");
    expect(html).toBe(
      `<p><span class="user-mention" data-user-id="${mia().userId}">@Mia Member</span> and <span class="user-mention" data-user-id="${adam.userId}">@Adam Admin</span>, check this out</p>`,
    );
  });
});

// Contract: GET /messages/{id}, its history and PATCH edits, against the sandbox (and a real server when configured).
import { expect, it } from "vitest";
import { describeContract, failure, listen, needSandbox } from "./contract/servers.js";

describeContract("GET /messages/{id}, its history, and PATCH edits", (server) => {
  it("fetches rendered or raw content, with content_type, raw_content, flags and reactions", async () => {
    const { id } = await server().client().messages.send({
      type: "channel",
      to: "general",
      topic: "fetch",
      content: "**bold**",
      read_by_sender: true, // an API client's messages start unread for their sender otherwise
    });
    const html = await server().client().messages.get({ message_id: id });
    expect(html.message.content).toBe("<p><strong>bold</strong></p>");
    expect(html.message.content_type).toBe("text/html");
    expect(html.raw_content).toBe("**bold**");
    expect(html.message.flags).toContain("read");
    expect(html.message.reactions).toEqual([]);
    expect(html.message).not.toHaveProperty("edit_history");
    const raw = await server().client().messages.get({ message_id: id, apply_markdown: false });
    expect(raw.message).toMatchObject({ content: "**bold**", content_type: "text/x-markdown" });
  });

  it("refuses a message that does not exist with BAD_REQUEST", async () => {
    expect(await failure(server().client().messages.get({ message_id: 99_999_999 }))).toMatchObject(
      {
        code: "BAD_REQUEST",
      },
    );
    expect(
      await failure(server().client().messages.history({ message_id: 99_999_999 })),
    ).toMatchObject({
      code: "BAD_REQUEST",
    });
  });

  it("refuses a direct message between other users", async (ctx) => {
    needSandbox(ctx, server());
    const mia = server().sandbox!.user("mia");
    const { id } = await server()
      .client("admin")
      .messages.send({ type: "direct", to: [mia.userId], content: "psst" });
    expect(await failure(server().client().messages.get({ message_id: id }))).toMatchObject({
      code: "BAD_REQUEST",
    });
    expect((await server().client("member").messages.get({ message_id: id })).message.content).toBe(
      "<p>psst</p>",
    );
  });

  it("shows the empty topic by its display name unless allow_empty_topic_name", async (ctx) => {
    needSandbox(ctx, server());
    const message = server().sandbox!.realm.postMessage({
      sender: server().sandbox!.realm.users.get(server().sandbox!.bot.userId)!,
      kind: "stream",
      channel: server().sandbox!.realm.channelByName("general")!,
      topic: "",
      content: "empty topic",
    });
    expect((await server().client().messages.get({ message_id: message.id })).message.subject).toBe(
      "general chat",
    );
    expect(
      (
        await server()
          .client()
          .messages.get({ message_id: message.id, allow_empty_topic_name: true })
      ).message.subject,
    ).toBe("");
  });

  it("records content and topic edits: edit_history, timestamps, snapshots oldest first", async () => {
    const { id } = await server().client().messages.send({
      type: "channel",
      to: "general",
      topic: "draft",
      content: "hello world",
    });
    await server().client().messages.update({ message_id: id, content: "hello brave world" });
    await server().client().messages.update({ message_id: id, topic: "final" });
    const { message } = await server().client().messages.get({ message_id: id });
    expect(message.subject).toBe("final");
    expect(message.last_edit_timestamp).toEqual(expect.any(Number));
    expect(message.last_moved_timestamp).toEqual(expect.any(Number));
    expect(message.edit_history).toHaveLength(2);
    // Most recent edit first.
    expect(message.edit_history![0]).toMatchObject({ prev_topic: "draft", topic: "final" });
    expect(message.edit_history![1]).toMatchObject({
      prev_content: "hello world",
      prev_rendered_content: "<p>hello world</p>",
    });
    const { message_history: history } = await server()
      .client()
      .messages.history({ message_id: id });
    expect(history).toHaveLength(3);
    expect(Object.keys(history[0]!).sort()).toEqual([
      "content",
      "rendered_content",
      "timestamp",
      "topic",
      "user_id",
    ]);
    expect(history[0]).toMatchObject({ topic: "draft", content: "hello world" });
    expect(Object.keys(history[1]!).sort()).toEqual(
      [
        "content",
        "content_html_diff",
        "prev_content",
        "prev_rendered_content",
        "rendered_content",
        "timestamp",
        "topic",
        "user_id",
      ].sort(),
    );
    expect(history[1]!.content_html_diff).toContain(
      '<span class="highlight_text_inserted">brave </span>',
    );
    expect(Object.keys(history[2]!).sort()).toEqual(
      ["content", "prev_topic", "rendered_content", "timestamp", "topic", "user_id"].sort(),
    );
    expect(history[2]).toMatchObject({
      topic: "final",
      prev_topic: "draft",
      content: "hello brave world",
    });
  });

  it("sends update_message events to the message's recipients", async (ctx) => {
    needSandbox(ctx, server());
    const mia = server().client("member");
    const queue = await listen(mia, { event_types: ["update_message"] });
    const { id } = await server().client().messages.send({
      type: "channel",
      to: "general",
      topic: "ev",
      content: "v1",
    });
    await server().client().messages.update({ message_id: id, content: "v2" });
    const [event] = await queue.drain();
    expect(event).toMatchObject({
      type: "update_message",
      message_id: id,
      message_ids: [id],
      orig_content: "v1",
      content: "v2",
      rendered_content: "<p>v2</p>",
      rendering_only: false,
      user_id: server().sandbox!.bot.userId,
    });
  });

  // test_message_edit.py: test_edit_message_no_permission; since feature level 334 the empty
  // topic is a topic like any other, so "(no topic)" moves the message there.
  it("only the sender edits content; a message moves to the empty topic", async (ctx) => {
    needSandbox(ctx, server());
    const { id } = await server().client().messages.send({
      type: "channel",
      to: "general",
      topic: "mine",
      content: "x",
    });
    expect(
      await failure(server().client("member").messages.update({ message_id: id, content: "y" })),
    ).toMatchObject({
      code: "BAD_REQUEST",
    });
    await server().client().messages.update({ message_id: id, topic: "(no topic)" });
    const { message } = await server()
      .client()
      .messages.get({ message_id: id, allow_empty_topic_name: true });
    expect(message.subject).toBe("");
  });

  it("shows senders and DM recipients by their API email, in events, GET /messages/{id} and GET /messages", async (ctx) => {
    const sandbox = needSandbox(ctx, server());
    const mia = sandbox.realm.users.get(sandbox.user("mia").userId)!;
    const placeholder = `user${mia.userId}@${sandbox.realm.settings.host}`;
    mia.settings.email_address_visibility = 3; // administrators only
    try {
      // The owner may see mia's real email, yet messages carry the API email (as on a real server).
      const owner = server().client("owner");
      const queue = await listen(owner, { event_types: ["message"] });
      const oliviaId = sandbox.user("olivia").userId;
      const { id } = await server()
        .client("member")
        .messages.send({ type: "direct", to: [oliviaId, sandbox.bot.userId], content: "hi all" });
      const { id: channelId } = await server()
        .client("member")
        .messages.send({ type: "channel", to: "general", topic: "emails", content: "hello" });
      const event = (await queue.drain()).map((e) => e.message as Record<string, unknown>);
      const fetched = (await owner.messages.get({ message_id: id })).message;
      const listed = await owner.messages.list({
        anchor: "newest",
        num_before: 5,
        num_after: 0,
        narrow: [{ operator: "sender", operand: placeholder }],
      });
      for (const view of [event[0]!, fetched, listed.messages.find((m) => m.id === id)!]) {
        expect(view.sender_email).toBe(placeholder);
        const recipients = view.display_recipient as { id: number; email: string }[];
        expect(recipients.find((r) => r.id === mia.userId)?.email).toBe(placeholder);
        expect(recipients.find((r) => r.id === oliviaId)?.email).toBe(sandbox.user("olivia").email);
      }
      expect(event[1]!.sender_email).toBe(placeholder);
      expect(listed.messages.map((m) => m.id)).toEqual([id, channelId]);
      expect(JSON.stringify([event, fetched, listed])).not.toContain(mia.email);

      // The placeholder addresses her as a DM recipient; the real email only for those who may see it.
      const toPlaceholder = await server()
        .client()
        .messages.send({ type: "direct", to: [placeholder], content: "by api email" });
      const dm = (await server().client().messages.get({ message_id: toPlaceholder.id })).message;
      expect((dm.display_recipient as { id: number }[]).map((r) => r.id)).toContain(mia.userId);
      await owner.messages.send({ type: "direct", to: [mia.email], content: "admin sees it" });
      expect(
        await failure(
          server()
            .client("guest")
            .messages.send({ type: "direct", to: [mia.email], content: "x" }),
        ),
      ).toMatchObject({ code: "BAD_REQUEST" });
    } finally {
      mia.settings.email_address_visibility = 1;
    }
  });

  it("a move out of someone's view deletes the messages for them; non-subscribers who still see them get them read", async (ctx) => {
    const sandbox = needSandbox(ctx, server());
    const bot = server().client();
    const send = async (topic: string, content: string) =>
      (await bot.messages.send({ type: "channel", to: "sandbox", topic, content })).id;
    const a = await send("move-me", "one");
    const b = await send("move-me", "two");
    const c = await send("wander", "three");
    const member = await listen(server().client("member"), {
      event_types: ["delete_message", "update_message", "update_message_flags"],
      client_capabilities: { bulk_message_deletion: true },
    });
    const guest = await listen(server().client("guest"), {
      event_types: ["delete_message", "update_message"],
    });
    const own = await listen(bot, { event_types: ["delete_message", "update_message"] });
    await bot.subscriptions.add({
      subscriptions: [{ name: "secret" }, { name: "elsewhere" }],
      invite_only: true,
    });
    const secret = sandbox.realm.channelByName("secret")!.streamId;
    const sandboxId = sandbox.realm.channelByName("sandbox")!.streamId;
    await bot.messages.update({ message_id: a, stream_id: secret, propagate_mode: "change_all" });

    expect(await member.drain()).toEqual([
      expect.objectContaining({
        type: "delete_message",
        message_type: "stream",
        stream_id: sandboxId,
        topic: "move-me",
        message_ids: [a, b],
      }),
    ]);
    expect((await guest.drain()).map((e) => [e.type, e.message_id])).toEqual([
      ["delete_message", a],
      ["delete_message", b],
    ]);
    expect((await own.drain()).map((e) => [e.type, e.message_ids])).toEqual([
      ["update_message", [a, b]],
    ]);
    expect(await failure(server().client("member").messages.get({ message_id: a }))).toMatchObject({
      code: "BAD_REQUEST",
    });

    // A public channel the member is not in: still visible, so an update and the read flag.
    const publicOne = sandbox.realm.channelByName("elsewhere")!;
    publicOne.inviteOnly = false;
    await bot.messages.update({ message_id: c, stream_id: publicOne.streamId });
    const events = await member.drain();
    expect(events.map((e) => e.type).sort()).toEqual(["update_message", "update_message_flags"]);
    expect(events.find((e) => e.type === "update_message_flags")).toMatchObject({
      op: "add",
      flag: "read",
      messages: [c],
    });
    const seen = await server().client("member").messages.get({ message_id: c });
    expect(seen.message.flags).toContain("read");
  });
});

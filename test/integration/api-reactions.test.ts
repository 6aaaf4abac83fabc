// Contract: reactions and message reports, against the sandbox (and a real server when configured).
import { beforeAll, expect, it } from "vitest";
import { describeContract, failure, listen, needSandbox, rawRequest } from "./contract/servers.js";

describeContract("reactions and reports", (server) => {
  let messageId: number;
  beforeAll(async () => {
    messageId = (
      await server().client().messages.send({
        type: "channel",
        to: "general",
        topic: "react",
        content: "nice",
      })
    ).id;
  });

  it("adds a unicode emoji by name; the message shows it; a second time is REACTION_ALREADY_EXISTS", async () => {
    await server()
      .client()
      .messages.addReaction({ message_id: messageId, emoji_name: "thumbs_up" });
    const { message } = await server().client().messages.get({ message_id: messageId });
    expect(message.reactions).toEqual([
      expect.objectContaining({
        emoji_name: "thumbs_up",
        emoji_code: "1f44d",
        reaction_type: "unicode_emoji",
      }),
    ]);
    expect(
      await failure(
        server().client().messages.addReaction({ message_id: messageId, emoji_name: "thumbs_up" }),
      ),
    ).toMatchObject({ code: "REACTION_ALREADY_EXISTS" });
  });

  it("refuses an unknown emoji name or code with BAD_REQUEST", async () => {
    expect(
      await failure(
        server().client().messages.addReaction({
          message_id: messageId,
          emoji_name: "no_such_emoji_xyz",
        }),
      ),
    ).toMatchObject({ code: "BAD_REQUEST" });
    expect(
      await failure(
        server().client().messages.addReaction({
          message_id: messageId,
          emoji_name: "x",
          emoji_code: "zzzz",
          // Without reaction_type the server takes the code from the name (`x` is an emoji).
          reaction_type: "unicode_emoji",
        }),
      ),
    ).toMatchObject({ code: "BAD_REQUEST" });
    const missing = await rawRequest(
      server(),
      server().main,
      "POST",
      `/messages/${messageId}/reactions`,
      {},
    );
    expect(missing.body).toMatchObject({
      code: "REQUEST_VARIABLE_MISSING",
      var_name: "emoji_name",
    });
  });

  it("accepts the three reaction types and sends reaction events to recipients", async (ctx) => {
    needSandbox(ctx, server());
    const mia = server().client("member");
    const queue = await listen(mia, { event_types: ["reaction"] });
    await server().client().messages.addReaction({
      message_id: messageId,
      emoji_name: "octopus",
      emoji_code: "1f419",
    });
    await server().client().messages.addReaction({
      message_id: messageId,
      emoji_name: "sandbox_logo",
      reaction_type: "realm_emoji",
    });
    await server().client().messages.addReaction({
      message_id: messageId,
      emoji_name: "zulip",
      reaction_type: "service_extra_emoji",
    });
    await server()
      .client()
      .messages.removeReaction({ message_id: messageId, emoji_name: "octopus" });
    const events = await queue.drain();
    expect(events.map((e) => [e.op, e.emoji_name, e.emoji_code, e.reaction_type])).toEqual([
      ["add", "octopus", "1f419", "unicode_emoji"],
      ["add", "sandbox_logo", "1", "realm_emoji"],
      ["add", "zulip", "zulip", "service_extra_emoji"],
      ["remove", "octopus", "1f419", "unicode_emoji"],
    ]);
    expect(events[0]).toMatchObject({
      message_id: messageId,
      user_id: server().sandbox!.bot.userId,
    });
  });

  it("removing a reaction that is not there is REACTION_DOES_NOT_EXIST", async () => {
    expect(
      await failure(
        server().client().messages.removeReaction({ message_id: messageId, emoji_name: "heart" }),
      ),
    ).toMatchObject({ code: "REACTION_DOES_NOT_EXIST" });
  });

  it("report: BAD_REQUEST without a moderation channel", async (ctx) => {
    needSandbox(ctx, server());
    expect(
      await failure(
        server().client("member").messages.report({ message_id: messageId, report_type: "spam" }),
      ),
    ).toMatchObject({ code: "BAD_REQUEST" });
  });

  it("report: all five types notify the moderation channel; `other` needs a description", async (ctx) => {
    needSandbox(ctx, server());
    const realm = server().sandbox!.realm;
    realm.addChannel("moderation", "Reports");
    realm.settings.moderationRequestChannel = "moderation";
    const mia = server().client("member");
    const before = realm.messages.length;
    for (const type of ["spam", "harassment", "inappropriate", "norms"] as const)
      await mia.messages.report({ message_id: messageId, report_type: type });
    await mia.messages.report({
      message_id: messageId,
      report_type: "other",
      description: "off topic",
    });
    const notices = realm.messages.slice(before);
    expect(notices).toHaveLength(5);
    const moderation = realm.channelByName("moderation")!;
    expect(notices.every((m) => m.streamId === moderation.streamId)).toBe(true);
    expect(notices[4]!.content).toContain("off topic");
    expect(notices[0]!.content).toContain("spam");
    expect(
      await failure(mia.messages.report({ message_id: messageId, report_type: "other" })),
    ).toMatchObject({ code: "BAD_REQUEST" });
    expect(
      await failure(
        mia.messages.report({ message_id: messageId, report_type: "other", description: "  " }),
      ),
    ).toMatchObject({ code: "BAD_REQUEST" });
    const missing = await rawRequest(
      server(),
      server().main,
      "POST",
      `/messages/${messageId}/report`,
      {},
    );
    expect(missing.body).toMatchObject({
      code: "REQUEST_VARIABLE_MISSING",
      var_name: "report_type",
    });
  });
});

import { afterAll, beforeAll, expect, it } from "vitest";
import { describeContract, failure, listen, type ContractServer } from "./contract/servers.js";

describeContract("reactions and reports", (factory, name) => {
  const sandboxOnly = name === "sandbox" ? it : it.skip;
  let server: ContractServer;
  let messageId: number;
  beforeAll(async () => {
    server = await factory();
    messageId = (
      await server.client.messages.send({
        type: "channel",
        to: "general",
        topic: "react",
        content: "nice",
      })
    ).id;
  });
  afterAll(() => server.close());

  it("adds a unicode emoji by name; the message shows it; a second time is REACTION_ALREADY_EXISTS", async () => {
    await server.client.messages.addReaction({ message_id: messageId, emoji_name: "thumbs_up" });
    const { message } = await server.client.messages.get({ message_id: messageId });
    expect(message.reactions).toEqual([
      expect.objectContaining({
        emoji_name: "thumbs_up",
        emoji_code: "1f44d",
        reaction_type: "unicode_emoji",
      }),
    ]);
    expect(
      await failure(
        server.client.messages.addReaction({ message_id: messageId, emoji_name: "thumbs_up" }),
      ),
    ).toMatchObject({ code: "REACTION_ALREADY_EXISTS" });
  });

  it("refuses an unknown emoji name or code with BAD_REQUEST", async () => {
    expect(
      await failure(
        server.client.messages.addReaction({
          message_id: messageId,
          emoji_name: "no_such_emoji_xyz",
        }),
      ),
    ).toMatchObject({ code: "BAD_REQUEST" });
    expect(
      await failure(
        server.client.messages.addReaction({
          message_id: messageId,
          emoji_name: "x",
          emoji_code: "zzzz",
        }),
      ),
    ).toMatchObject({ code: "BAD_REQUEST" });
    const missing = await server.raw("POST", `/messages/${messageId}/reactions`, {});
    expect(missing.body).toMatchObject({
      code: "REQUEST_VARIABLE_MISSING",
      var_name: "emoji_name",
    });
  });

  sandboxOnly(
    "accepts the three reaction types and sends reaction events to recipients",
    async () => {
      const mia = server.clientFor("mia");
      const queue = await listen(mia, { event_types: ["reaction"] });
      await server.client.messages.addReaction({
        message_id: messageId,
        emoji_name: "octopus",
        emoji_code: "1f419",
      });
      await server.client.messages.addReaction({
        message_id: messageId,
        emoji_name: "sandbox_logo",
        reaction_type: "realm_emoji",
      });
      await server.client.messages.addReaction({
        message_id: messageId,
        emoji_name: "zulip",
        reaction_type: "service_extra_emoji",
      });
      await server.client.messages.removeReaction({ message_id: messageId, emoji_name: "octopus" });
      const events = await queue.drain();
      expect(events.map((e) => [e.op, e.emoji_name, e.emoji_code, e.reaction_type])).toEqual([
        ["add", "octopus", "1f419", "unicode_emoji"],
        ["add", "sandbox_logo", "1", "realm_emoji"],
        ["add", "zulip", "zulip", "service_extra_emoji"],
        ["remove", "octopus", "1f419", "unicode_emoji"],
      ]);
      expect(events[0]).toMatchObject({
        message_id: messageId,
        user_id: server.sandbox!.bot.userId,
      });
    },
  );

  it("removing a reaction that is not there is REACTION_DOES_NOT_EXIST", async () => {
    expect(
      await failure(
        server.client.messages.removeReaction({ message_id: messageId, emoji_name: "red_heart" }),
      ),
    ).toMatchObject({ code: "REACTION_DOES_NOT_EXIST" });
  });

  sandboxOnly("report: BAD_REQUEST without a moderation channel", async () => {
    expect(
      await failure(
        server.clientFor("mia").messages.report({ message_id: messageId, report_type: "spam" }),
      ),
    ).toMatchObject({ code: "BAD_REQUEST" });
  });

  sandboxOnly(
    "report: all five types notify the moderation channel; `other` needs a description",
    async () => {
      const realm = server.sandbox!.realm;
      realm.addChannel("moderation", "Reports");
      realm.settings.moderationRequestChannel = "moderation";
      const mia = server.clientFor("mia");
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
      const missing = await server.raw("POST", `/messages/${messageId}/report`, {});
      expect(missing.body).toMatchObject({
        code: "REQUEST_VARIABLE_MISSING",
        var_name: "report_type",
      });
    },
  );
});

// Behaviours of reactions ported from the server's zerver/tests/test_reactions.py (zerver/views/reactions.py, actions/reactions.py).
import { beforeAll, expect, it } from "vitest";
import {
  describeContract,
  eventsDuring,
  needSandbox,
  rawRequest,
  type ContractServer,
} from "./servers.js";

const post = (
  server: ContractServer,
  role: "bot" | "member" | "admin",
  id: number | string,
  fields: Record<string, string>,
) => rawRequest(server, role, "POST", `/messages/${id}/reactions`, fields);
const del = (
  server: ContractServer,
  role: "bot" | "member" | "admin",
  id: number | string,
  fields: Record<string, string>,
) => rawRequest(server, role, "DELETE", `/messages/${id}/reactions`, fields);

describeContract("reactions (upstream test_reactions.py)", (server) => {
  let id = 0;
  let dm = 0;
  beforeAll(async () => {
    id = (
      await server().client().messages.send({
        type: "channel",
        to: "general",
        topic: "reactions",
        content: "react here",
      })
    ).id;
    if (server().sandbox)
      dm = (
        await server()
          .client("member")
          .messages.send({
            type: "direct",
            to: [server().sandbox!.user("adam").userId],
            content: "private",
          })
      ).id;
  });
  const fresh = async () =>
    (
      await server()
        .client()
        .messages.send({ type: "channel", to: "general", topic: "reactions", content: "another" })
    ).id;

  // upstream: test_reactions.py ReactionEmojiTest.test_missing_emoji
  it("refuses an empty emoji name with 400", async () => {
    expect((await post(server(), "bot", id, { emoji_name: "" })).status).toBe(400);
  });

  // upstream: test_reactions.py ReactionEmojiTest.test_add_invalid_emoji
  it("refuses an unknown emoji name", async () => {
    const res = await post(server(), "bot", id, { emoji_name: "foo" });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: "BAD_REQUEST", msg: "Emoji 'foo' does not exist" });
  });

  // upstream: test_reactions.py ReactionEmojiTest.test_add_deactivated_realm_emoji
  it("refuses a deactivated custom emoji by name", async (ctx) => {
    needSandbox(ctx, server());
    const res = await post(server(), "bot", id, {
      emoji_name: "old_logo",
      reaction_type: "realm_emoji",
    });
    expect(res.body).toMatchObject({ msg: "Emoji 'old_logo' does not exist" });
  });

  // upstream: test_reactions.py ReactionEmojiTest.test_valid_emoji / test_valid_realm_emoji
  it("accepts a Unicode emoji and a custom emoji by name", async (ctx) => {
    needSandbox(ctx, server());
    const target = await fresh();
    expect((await post(server(), "bot", target, { emoji_name: "smile" })).status).toBe(200);
    expect(
      (
        await post(server(), "bot", target, {
          emoji_name: "green_tick",
          reaction_type: "realm_emoji",
        })
      ).status,
    ).toBe(200);
    const { message } = await server().client().messages.get({ message_id: target });
    expect(message.reactions.map((r) => [r.emoji_name, r.reaction_type])).toEqual([
      ["smile", "unicode_emoji"],
      ["green_tick", "realm_emoji"],
    ]);
  });

  // upstream: test_reactions.py ReactionEmojiTest.test_cached_reaction_data (reactions in order, with user_id; the
  // deprecated `user` object left message reactions at feature level 328, per the OpenAPI description)
  it("lists reactions in the order made, with user_id", async (ctx) => {
    needSandbox(ctx, server());
    const target = await fresh();
    await post(server(), "bot", target, { emoji_name: "smile" });
    await post(server(), "member", target, { emoji_name: "tada" });
    const { message } = await server().client().messages.get({ message_id: target });
    const mia = server().sandbox!.user("mia");
    expect(message.reactions).toEqual([
      expect.objectContaining({
        emoji_name: "smile",
        reaction_type: "unicode_emoji",
        user_id: server().sandbox!.bot.userId,
      }),
      expect.objectContaining({
        emoji_name: "tada",
        emoji_code: "1f389",
        reaction_type: "unicode_emoji",
        user_id: mia.userId,
      }),
    ]);
  });

  // upstream: test_reactions.py ReactionMessageIDTest.test_invalid_message_id (no route: 404)
  it("answers 404 for a message ID that is no number", async () => {
    expect((await post(server(), "bot", "-1", { emoji_name: "smile" })).status).toBe(404);
    expect((await post(server(), "bot", "abc", { emoji_name: "smile" })).status).toBe(404);
  });

  // upstream: test_reactions.py ReactionMessageIDTest.test_inaccessible_message_id
  it("refuses a reaction to a message the user cannot see", async (ctx) => {
    needSandbox(ctx, server());
    const res = await post(server(), "bot", dm, { emoji_name: "smile" });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: "BAD_REQUEST", msg: "Invalid message(s)" });
  });

  // upstream: test_reactions.py ReactionTest.test_add_existing_reaction
  it("refuses the same reaction twice with REACTION_ALREADY_EXISTS", async () => {
    const target = await fresh();
    expect((await post(server(), "bot", target, { emoji_name: "smile" })).status).toBe(200);
    const second = await post(server(), "bot", target, { emoji_name: "smile" });
    expect(second.status).toBe(400);
    expect(second.body).toMatchObject({
      code: "REACTION_ALREADY_EXISTS",
      msg: "Reaction already exists.",
    });
  });

  // upstream: test_reactions.py DefaultEmojiReactionTests.test_add_duplicate_reaction (existence is checked before the name)
  it("answers REACTION_ALREADY_EXISTS even when the name given is invalid", async () => {
    const target = await fresh();
    await post(server(), "bot", target, {
      emoji_name: "hamburger",
      emoji_code: "1f354",
      reaction_type: "unicode_emoji",
    });
    const res = await post(server(), "bot", target, {
      emoji_name: "non-existent",
      emoji_code: "1f354",
      reaction_type: "unicode_emoji",
    });
    expect(res.body).toMatchObject({ code: "REACTION_ALREADY_EXISTS" });
  });

  // upstream: test_reactions.py ReactionTest.test_remove_nonexisting_reaction
  it("refuses removing a reaction twice with REACTION_DOES_NOT_EXIST", async () => {
    const target = await fresh();
    await post(server(), "bot", target, { emoji_name: "smile" });
    expect((await del(server(), "bot", target, { emoji_name: "smile" })).status).toBe(200);
    const second = await del(server(), "bot", target, { emoji_name: "smile" });
    expect(second.status).toBe(400);
    expect(second.body).toMatchObject({
      code: "REACTION_DOES_NOT_EXIST",
      msg: "Reaction doesn't exist.",
    });
  });

  // upstream: test_reactions.py DefaultEmojiReactionTests.test_add_default_emoji_invalid_code
  it("refuses an invalid Unicode emoji code", async () => {
    const res = await post(server(), "bot", id, {
      emoji_name: "hamburger",
      emoji_code: "TBD",
      reaction_type: "unicode_emoji",
    });
    expect(res.body).toMatchObject({ code: "BAD_REQUEST", msg: "Invalid emoji code." });
  });

  // upstream: test_reactions.py DefaultEmojiReactionTests.test_add_default_emoji_invalid_name
  it("refuses a name that is not the code's", async () => {
    const res = await post(server(), "bot", id, {
      emoji_name: "non-existent",
      emoji_code: "1f44d",
      reaction_type: "unicode_emoji",
    });
    expect(res.body).toMatchObject({ code: "BAD_REQUEST", msg: "Invalid emoji name." });
  });

  // upstream: test_reactions.py DefaultEmojiReactionTests.test_add_reaction_by_name / test_preserve_non_canonical_name
  it("keeps a non-canonical name such as +1", async () => {
    const target = await fresh();
    await post(server(), "bot", target, { emoji_name: "+1", reaction_type: "unicode_emoji" });
    const { message } = await server().client().messages.get({ message_id: target });
    expect(message.reactions[0]).toMatchObject({ emoji_name: "+1", emoji_code: "1f44d" });
  });

  // upstream: test_reactions.py DefaultEmojiReactionTests.test_reaction_name_collapse (a vote takes the existing name)
  it("gives a second user's reaction with the same code the first one's name", async (ctx) => {
    needSandbox(ctx, server());
    const target = await fresh();
    await post(server(), "bot", target, {
      emoji_name: "+1",
      emoji_code: "1f44d",
      reaction_type: "unicode_emoji",
    });
    expect(
      (
        await post(server(), "member", target, {
          emoji_name: "thumbs_up",
          emoji_code: "1f44d",
          reaction_type: "unicode_emoji",
        })
      ).status,
    ).toBe(200);
    const { message } = await server().client().messages.get({ message_id: target });
    expect(message.reactions.map((r) => r.emoji_name)).toEqual(["+1", "+1"]);
  });

  // upstream: test_reactions.py DefaultEmojiReactionTests.test_add_to_existing_renamed_default_emoji_reaction (a vote skips validation)
  it("accepts a vote with a name that would not validate", async (ctx) => {
    needSandbox(ctx, server());
    const target = await fresh();
    await post(server(), "bot", target, {
      emoji_name: "smiley",
      emoji_code: "1f603",
      reaction_type: "unicode_emoji",
    });
    const res = await post(server(), "member", target, {
      emoji_name: "whatever_name",
      emoji_code: "1f603",
      reaction_type: "unicode_emoji",
    });
    expect(res.status).toBe(200);
  });

  // upstream: test_reactions.py DefaultEmojiReactionTests.test_delete_insufficient_arguments_reaction
  it("refuses a removal without emoji_name or emoji_code", async () => {
    const res = await del(server(), "bot", id, {});
    expect(res.body).toMatchObject({
      code: "BAD_REQUEST",
      msg: "At least one of the following arguments must be present: emoji_name, emoji_code",
    });
  });

  // upstream: test_reactions.py DefaultEmojiReactionTests.test_delete_renamed_default_emoji (the name is not compared)
  it("removes by code whatever name is given", async () => {
    const target = await fresh();
    await post(server(), "bot", target, {
      emoji_name: "clap",
      emoji_code: "1f44f",
      reaction_type: "unicode_emoji",
    });
    const res = await del(server(), "bot", target, {
      emoji_name: "new_name",
      emoji_code: "1f44f",
      reaction_type: "unicode_emoji",
    });
    expect(res.status).toBe(200);
  });

  // upstream: test_reactions.py DefaultEmojiReactionTests.test_delete_reaction_by_name
  it("removes by name alone", async () => {
    const target = await fresh();
    await post(server(), "bot", target, { emoji_name: "+1" });
    expect((await del(server(), "bot", target, { emoji_name: "+1" })).status).toBe(200);
    const { message } = await server().client().messages.get({ message_id: target });
    expect(message.reactions).toEqual([]);
  });

  // upstream: test_reactions.py remove_reaction (reaction_type defaults to unicode_emoji, so a custom emoji needs it)
  it("removes a custom emoji by name only with its reaction_type", async (ctx) => {
    needSandbox(ctx, server());
    const target = await fresh();
    await post(server(), "bot", target, { emoji_name: "green_tick" });
    expect((await del(server(), "bot", target, { emoji_name: "green_tick" })).body).toMatchObject({
      code: "REACTION_DOES_NOT_EXIST",
    });
    expect(
      (
        await del(server(), "bot", target, {
          emoji_name: "green_tick",
          reaction_type: "realm_emoji",
        })
      ).status,
    ).toBe(200);
  });

  // upstream: test_reactions.py ReactionTest.test_remove_existing_reaction_with_deactivated_realm_emoji
  it("removes a reaction whose custom emoji was deactivated since", async (ctx) => {
    const sandbox = needSandbox(ctx, server());
    const target = await fresh();
    const tick = [...sandbox.realm.realmEmoji.values()].find((e) => e.name === "green_tick")!;
    await post(server(), "bot", target, {
      emoji_name: "green_tick",
      emoji_code: tick.id,
      reaction_type: "realm_emoji",
    });
    tick.deactivated = true;
    try {
      const res = await del(server(), "bot", target, {
        emoji_name: "green_tick",
        emoji_code: tick.id,
        reaction_type: "realm_emoji",
      });
      expect(res.status).toBe(200);
    } finally {
      tick.deactivated = false;
    }
  });

  // upstream: test_reactions.py ReactionEventTest.test_add_event / test_remove_event
  it("sends reaction add and remove events with the reacting user", async (ctx) => {
    needSandbox(ctx, server());
    const target = await fresh();
    const events = await eventsDuring(server().client("member"), ["reaction"], async () => {
      await post(server(), "bot", target, { emoji_name: "smile" });
      await del(server(), "bot", target, { emoji_name: "smile" });
    });
    expect(events.map((e) => [e.op, e.emoji_name, e.message_id])).toEqual([
      ["add", "smile", target],
      ["remove", "smile", target],
    ]);
    expect(events[0]).toMatchObject({
      user_id: server().sandbox!.bot.userId,
      user: { user_id: server().sandbox!.bot.userId, full_name: "Topic Bot" },
      reaction_type: "unicode_emoji",
    });
  });

  // upstream: test_reactions.py ReactionEventTest.test_reaction_event_scope (DM: both participants, nobody else)
  it("sends a DM's reaction events to its participants only", async (ctx) => {
    needSandbox(ctx, server());
    const events = await eventsDuring(server().client(), ["reaction"], () =>
      post(server(), "member", dm, { emoji_name: "smile" }),
    );
    expect(events).toEqual([]);
    const own = await eventsDuring(server().client("admin"), ["reaction"], () =>
      post(server(), "member", dm, { emoji_name: "tada" }),
    );
    expect(own.map((e) => e.emoji_name)).toEqual(["tada"]);
  });
});

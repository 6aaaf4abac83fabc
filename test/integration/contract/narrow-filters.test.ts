// Narrow filters of GET /messages ported from the server's zerver/tests/test_message_fetch.py (GetOldMessagesTest, narrow tests).
import { beforeAll, expect, it } from "vitest";
import { describeContract, needSandbox } from "./servers.js";

describeContract("narrow filters (upstream test_message_fetch.py GetOldMessagesTest)", (server) => {
  const ids: Record<string, number> = {};
  beforeAll(async () => {
    const sandbox = server().sandbox;
    if (!sandbox) return;
    const mia = server().client("member");
    const adam = server().client("admin");
    const bot = sandbox.bot.userId;
    ids.plain = (
      await mia.messages.send({
        type: "channel",
        to: "general",
        topic: "Lunch",
        content: "pizza time",
      })
    ).id;
    ids.link = (
      await mia.messages.send({
        type: "channel",
        to: "general",
        topic: "links",
        content: "see https://example.com",
      })
    ).id;
    ids.adam = (
      await adam.messages.send({
        type: "channel",
        to: "general",
        topic: "lunch",
        content: "salad time",
      })
    ).id;
    ids.dm = (await mia.messages.send({ type: "direct", to: [bot], content: "secret pizza" })).id;
    ids.group = (
      await mia.messages.send({
        type: "direct",
        to: [bot, sandbox.user("adam").userId],
        content: "group chat",
      })
    ).id;
  });
  const list = async (narrow: unknown[]) =>
    (
      await server()
        .client()
        .messages.list({
          anchor: "oldest",
          num_before: 0,
          num_after: 100,
          narrow: narrow as never,
        })
    ).messages;
  const idsOf = async (narrow: unknown[]) => (await list(narrow)).map((m) => m.id);

  // upstream: test_message_fetch.py GetOldMessagesTest.test_get_messages_with_narrow_topic (case-insensitive)
  it("matches a topic case-insensitively", async (ctx) => {
    needSandbox(ctx, server());
    expect(await idsOf([{ operator: "topic", operand: "LUNCH" }])).toEqual([ids.plain, ids.adam]);
  });

  // upstream: test_message_fetch.py GetOldMessagesTest.test_get_visible_messages_with_narrow_sender (by email and by ID)
  it("filters by sender email or ID", async (ctx) => {
    const sandbox = needSandbox(ctx, server());
    const adam = sandbox.user("adam");
    expect(await idsOf([{ operator: "sender", operand: adam.email }])).toEqual([ids.adam]);
    expect(await idsOf([{ operator: "sender", operand: adam.userId }])).toEqual([ids.adam]);
  });

  // upstream: test_message_fetch.py GetOldMessagesTest.test_get_messages_with_narrow_dm (one-to-one conversation)
  it("filters a one-to-one DM conversation", async (ctx) => {
    const sandbox = needSandbox(ctx, server());
    expect(await idsOf([{ operator: "dm", operand: [sandbox.user("mia").userId] }])).toEqual([
      ids.dm,
    ]);
  });

  // upstream: test_message_fetch.py GetOldMessagesTest.test_get_messages_with_narrow_dm (a group conversation by its users)
  it("filters a group DM conversation by its users", async (ctx) => {
    const sandbox = needSandbox(ctx, server());
    const group = [sandbox.user("mia").userId, sandbox.user("adam").userId];
    expect(await idsOf([{ operator: "dm", operand: group }])).toEqual([ids.group]);
  });

  // upstream: test_message_fetch.py GetOldMessagesTest.test_get_messages_with_narrow_dm_including
  it("filters DMs including a user", async (ctx) => {
    const sandbox = needSandbox(ctx, server());
    expect(
      await idsOf([{ operator: "dm-including", operand: sandbox.user("adam").userId }]),
    ).toEqual([ids.group]);
  });

  // upstream: test_message_fetch.py GetOldMessagesTest.test_get_messages_with_narrow_is_dm
  it("filters is:dm", async (ctx) => {
    needSandbox(ctx, server());
    expect(await idsOf([{ operator: "is", operand: "dm" }])).toEqual([ids.dm, ids.group]);
  });

  // upstream: test_message_fetch.py GetOldMessagesTest.test_get_messages_with_narrow_negated
  it("negates a term", async (ctx) => {
    needSandbox(ctx, server());
    const got = await idsOf([
      { operator: "channel", operand: "general" },
      { operator: "topic", operand: "lunch", negated: true },
    ]);
    expect(got).toContain(ids.link);
    expect(got).not.toContain(ids.plain);
  });

  // upstream: test_message_fetch.py GetOldMessagesTest.test_get_messages_with_search (match_content and match_subject)
  it("searches content and topic, with highlights", async (ctx) => {
    needSandbox(ctx, server());
    const found = await list([
      { operator: "channel", operand: "general" },
      { operator: "search", operand: "pizza" },
    ]);
    expect(found.map((m) => m.id)).toEqual([ids.plain]);
    expect(found[0]!.match_content).toContain('<span class="highlight">pizza</span>');
    expect(found[0]!.match_subject).toBe("Lunch");
  });

  // upstream: test_message_fetch.py NarrowBuilderTest.test_add_term_using_has_operator_link_operand (has:link)
  it("filters has:link", async (ctx) => {
    needSandbox(ctx, server());
    expect(await idsOf([{ operator: "has", operand: "link" }])).toEqual([ids.link]);
  });

  // upstream: test_message_fetch.py GetOldMessagesTest.test_get_messages_with_narrow_id
  it("filters id:", async (ctx) => {
    needSandbox(ctx, server());
    expect(await idsOf([{ operator: "id", operand: ids.adam }])).toEqual([ids.adam]);
  });

  // upstream: test_message_fetch.py GetOldMessagesTest.test_get_messages_with_narrow_legacy_pairs (operator/operand pairs)
  it("accepts [operator, operand] pairs and the legacy names stream and subject", async (ctx) => {
    needSandbox(ctx, server());
    expect(
      await idsOf([
        ["stream", "general"],
        ["subject", "links"],
      ]),
    ).toEqual([ids.link]);
  });

  // upstream: test_message_fetch.py GetOldMessagesTest.test_get_messages_with_narrow_starred (is:starred after starring)
  it("filters is:starred", async (ctx) => {
    needSandbox(ctx, server());
    await server().client().messages.updateFlagsForNarrow({
      anchor: ids.link!,
      num_before: 0,
      num_after: 0,
      narrow: [],
      op: "add",
      flag: "starred",
    });
    expect(await idsOf([{ operator: "is", operand: "starred" }])).toEqual([ids.link]);
  });
});

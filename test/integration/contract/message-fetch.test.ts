// Behaviours of GET /messages ported from the server's zerver/tests/test_message_fetch.py (and zerver/lib/narrow.py).
import { beforeAll, expect, it } from "vitest";
import { describeContract, needSandbox, rawRequest, type ContractServer } from "./servers.js";

const NEWEST = 10_000_000_000_000_000;

/** GET /messages as raw fields (the typed client would refuse some of these). */
const get = (
  server: ContractServer,
  fields: Record<string, unknown>,
  role: "bot" | "member" = "bot",
) =>
  rawRequest(
    server,
    role,
    "GET",
    "/messages",
    Object.fromEntries(
      Object.entries(fields).map(([k, v]) => [k, typeof v === "string" ? v : JSON.stringify(v)]),
    ),
  );

describeContract("GET /messages (upstream test_message_fetch.py)", (server) => {
  const ids: number[] = [];
  const narrow = [{ operator: "channel", operand: "fetch-test" }];
  beforeAll(async () => {
    const sandbox = server().sandbox;
    if (!sandbox) return;
    const channel = sandbox.realm.addChannel("fetch-test");
    for (const handle of ["mia", "bot", "adam"])
      sandbox.realm.subscribe(channel, sandbox.user(handle).userId);
    const mia = server().client("member");
    for (let i = 0; i < 5; i++)
      ids.push(
        (
          await mia.messages.send({
            type: "channel",
            to: "fetch-test",
            topic: i < 3 ? "one" : "two",
            content: `message ${i}`,
          })
        ).id,
      );
  });

  const fetch = async (fields: Record<string, unknown>) => {
    const res = await get(server(), { narrow, ...fields });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body as {
      messages: { id: number }[];
      anchor?: number;
      found_anchor: boolean;
      found_oldest: boolean;
      found_newest: boolean;
      history_limited: boolean;
    };
  };
  const idsOf = (body: { messages: { id: number }[] }) => body.messages.map((m) => m.id);

  // upstream: test_message_fetch.py PostProcessTest.test_basics (num_before rows before, anchor, num_after)
  it("answers num_before older, the anchor and num_after newer messages", async (ctx) => {
    needSandbox(ctx, server());
    const body = await fetch({ anchor: ids[2], num_before: 1, num_after: 1 });
    expect(idsOf(body)).toEqual([ids[1], ids[2], ids[3]]);
    expect(body).toMatchObject({ anchor: ids[2], found_anchor: true });
  });

  // upstream: test_message_fetch.py PostProcessTest.test_basics (found_oldest: fewer than num_before rows)
  it("sets found_oldest only when fewer than num_before older messages came", async (ctx) => {
    needSandbox(ctx, server());
    const exact = await fetch({ anchor: ids[2], num_before: 2, num_after: 0 });
    expect(idsOf(exact)).toEqual([ids[0], ids[1], ids[2]]);
    expect(exact.found_oldest).toBe(false);
    const fewer = await fetch({ anchor: ids[2], num_before: 3, num_after: 0 });
    expect(fewer.found_oldest).toBe(true);
  });

  // upstream: test_message_fetch.py PostProcessTest.test_basics (found_newest false with num_after=0)
  it("leaves found_newest false with num_after 0, even at the newest message", async (ctx) => {
    needSandbox(ctx, server());
    const body = await fetch({ anchor: ids[4], num_before: 1, num_after: 0 });
    expect(idsOf(body)).toEqual([ids[3], ids[4]]);
    expect(body).toMatchObject({ found_anchor: true, found_newest: false, found_oldest: false });
  });

  // upstream: test_message_fetch.py PostProcessTest.test_basics (found_newest: fewer than num_after rows)
  it("sets found_newest only when fewer than num_after newer messages came", async (ctx) => {
    needSandbox(ctx, server());
    const exact = await fetch({ anchor: ids[2], num_before: 0, num_after: 2 });
    expect(idsOf(exact)).toEqual([ids[2], ids[3], ids[4]]);
    expect(exact.found_newest).toBe(false);
    const fewer = await fetch({ anchor: ids[2], num_before: 0, num_after: 3 });
    expect(fewer.found_newest).toBe(true);
  });

  // upstream: test_message_fetch.py GetOldMessagesTest.test_get_messages_with_anchor_newest (anchored_to_right)
  it("anchors `newest` to the right: found_newest, no found_anchor, anchor 10^16", async (ctx) => {
    needSandbox(ctx, server());
    const body = await fetch({ anchor: "newest", num_before: 2, num_after: 5 });
    expect(idsOf(body)).toEqual([ids[3], ids[4]]);
    expect(body).toMatchObject({
      anchor: NEWEST,
      found_anchor: false,
      found_newest: true,
      found_oldest: false,
    });
  });

  // upstream: test_message_fetch.py GetOldMessagesTest.test_get_messages_with_anchor_oldest (anchored_to_left)
  it("anchors `oldest` to the left: found_oldest, anchor 0", async (ctx) => {
    needSandbox(ctx, server());
    const body = await fetch({ anchor: "oldest", num_before: 3, num_after: 2 });
    expect(idsOf(body)).toEqual([ids[0], ids[1]]);
    expect(body).toMatchObject({
      anchor: 0,
      found_anchor: false,
      found_oldest: true,
      found_newest: false,
    });
    const all = await fetch({ anchor: "oldest", num_before: 0, num_after: 5 });
    expect(all.found_newest).toBe(false);
    const more = await fetch({ anchor: "oldest", num_before: 0, num_after: 6 });
    expect(more.found_newest).toBe(true);
  });

  // upstream: test_message_fetch.py GetOldMessagesTest.test_parse_anchor_value (negative and huge anchors clamp)
  it("clamps a negative anchor to 0 and a huge one to newest", async (ctx) => {
    needSandbox(ctx, server());
    const low = await fetch({ anchor: "-5", num_before: 0, num_after: 1 });
    expect(low).toMatchObject({ anchor: 0, found_oldest: true });
    expect(idsOf(low)).toEqual([ids[0]]);
    const high = await fetch({ anchor: "99999999999999999999", num_before: 1, num_after: 0 });
    expect(high).toMatchObject({ anchor: NEWEST, found_newest: true });
    expect(idsOf(high)).toEqual([ids[4]]);
  });

  // upstream: test_message_fetch.py GetOldMessagesTest.test_invalid_anchor ("Invalid anchor")
  it("refuses an anchor that is no number nor keyword", async () => {
    const res = await get(server(), { anchor: "yesterday", num_before: 1, num_after: 1 });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ result: "error", code: "BAD_REQUEST", msg: "Invalid anchor" });
  });

  // upstream: test_message_fetch.py GetOldMessagesTest.test_missing_params ("Missing 'anchor' argument.")
  it("refuses a fetch without anchor, and counts default to 0", async () => {
    const res = await get(server(), { num_before: 1, num_after: 1 });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: "BAD_REQUEST", msg: "Missing 'anchor' argument." });
    const only = await get(server(), { anchor: "newest" });
    expect(only.status).toBe(200);
    expect(only.body).toMatchObject({ found_newest: true, messages: [] });
  });

  // upstream: test_message_fetch.py GetOldMessagesTest.test_exclude_anchor ("The anchor can only be excluded at an end of the range")
  it("refuses excluding the anchor inside a range", async () => {
    const res = await get(server(), {
      anchor: "newest",
      num_before: 1,
      num_after: 1,
      include_anchor: false,
    });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      code: "BAD_REQUEST",
      msg: "The anchor can only be excluded at an end of the range",
    });
  });

  // upstream: test_message_fetch.py GetOldMessagesTest.test_exclude_anchor (include_anchor=false at an end)
  it("leaves the anchor out at an end of the range, found_anchor false", async (ctx) => {
    needSandbox(ctx, server());
    const after = await fetch({
      anchor: ids[1],
      num_before: 0,
      num_after: 2,
      include_anchor: false,
    });
    expect(idsOf(after)).toEqual([ids[2], ids[3]]);
    expect(after.found_anchor).toBe(false);
    const before = await fetch({
      anchor: ids[3],
      num_before: 2,
      num_after: 0,
      include_anchor: false,
    });
    expect(idsOf(before)).toEqual([ids[1], ids[2]]);
    expect(before).toMatchObject({ found_anchor: false, found_oldest: false });
  });

  // upstream: test_message_fetch.py GetOldMessagesTest.test_get_messages_with_anchor (num_before=num_after=0)
  it("answers the anchor alone with both counts 0", async (ctx) => {
    needSandbox(ctx, server());
    const body = await fetch({ anchor: ids[2], num_before: 0, num_after: 0 });
    expect(idsOf(body)).toEqual([ids[2]]);
    expect(body).toMatchObject({ found_anchor: true, found_oldest: false, found_newest: false });
    const missing = await fetch({ anchor: ids[2]! + 10_000, num_before: 0, num_after: 0 });
    expect(missing).toMatchObject({ messages: [], found_anchor: false });
  });

  // upstream: test_message_fetch.py GetOldMessagesTest.test_too_many_messages_requested
  it("refuses more than 5000 messages", async () => {
    const res = await get(server(), { anchor: "newest", num_before: 2500, num_after: 2501 });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ msg: "Too many messages requested (maximum 5000)." });
  });

  // upstream: test_message_fetch.py GetOldMessagesTest.test_bad_int_params (negative counts)
  it("refuses negative counts", async () => {
    const res = await get(server(), { anchor: "newest", num_before: -1, num_after: 0 });
    expect(res.status).toBe(400);
    expect(res.body.result).toBe("error");
  });

  // upstream: test_message_fetch.py GetOldMessagesTest.test_get_messages_with_message_ids (found_* all false, no anchor)
  it("answers message_ids with found_* false and no anchor", async (ctx) => {
    needSandbox(ctx, server());
    const res = await get(server(), { message_ids: [ids[0], ids[3]] });
    expect(res.status).toBe(200);
    expect((res.body.messages as { id: number }[]).map((m) => m.id)).toEqual([ids[0], ids[3]]);
    expect(res.body).toMatchObject({
      found_anchor: false,
      found_oldest: false,
      found_newest: false,
      history_limited: false,
    });
    expect(res.body).not.toHaveProperty("anchor");
  });

  // upstream: test_message_fetch.py GetOldMessagesTest.test_get_messages_with_message_ids_and_anchor (IncompatibleParametersError)
  it("refuses message_ids with anchor or counts, naming the parameters", async () => {
    const res = await get(server(), { message_ids: [1], anchor: "newest", num_before: 1 });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      code: "BAD_REQUEST",
      msg: "Unsupported parameter combination: num_before, num_after, anchor, message_ids, include_anchor, use_first_unread_anchor",
      parameters:
        "num_before, num_after, anchor, message_ids, include_anchor, use_first_unread_anchor",
    });
  });

  // upstream: test_message_fetch.py GetOldMessagesTest.test_use_first_unread_anchor_with_some_unread_messages
  it("anchors first_unread at the oldest unread message", async (ctx) => {
    needSandbox(ctx, server());
    const body = await fetch({ anchor: "first_unread", num_before: 0, num_after: 1 });
    expect(body.anchor).toBe(ids[0]);
    expect(idsOf(body)).toEqual([ids[0], ids[1]]);
    const legacy = await fetch({ use_first_unread_anchor: true, num_before: 0, num_after: 0 });
    expect(legacy.anchor).toBe(ids[0]);
  });

  // upstream: test_message_fetch.py GetOldMessagesTest.test_use_first_unread_anchor_with_no_unread_messages
  it("anchors first_unread at newest when nothing is unread", async (ctx) => {
    needSandbox(ctx, server());
    await server().client("member").messages.updateFlagsForNarrow({
      anchor: "oldest",
      num_before: 0,
      num_after: 100,
      narrow,
      op: "add",
      flag: "read",
    });
    const res = await get(
      server(),
      { narrow, anchor: "first_unread", num_before: 1, num_after: 1 },
      "member",
    );
    expect(res.body).toMatchObject({ anchor: NEWEST, found_newest: true, found_anchor: false });
  });
});

describeContract(
  "narrow errors (upstream test_message_fetch.py, zerver/lib/narrow.py)",
  (server) => {
    const bad = async (narrow: unknown, desc: string) => {
      const res = await get(server(), { anchor: "newest", num_before: 1, num_after: 0, narrow });
      expect(res.status, JSON.stringify(res.body)).toBe(400);
      expect(res.body).toMatchObject({
        result: "error",
        code: "BAD_NARROW",
        msg: `Invalid narrow operator: ${desc}`,
        desc,
      });
    };

    // upstream: test_message_fetch.py NarrowBuilderTest.test_add_term_using_not_defined_operator
    it("refuses an unknown operator", async () => {
      await bad([{ operator: "not-defined", operand: "any" }], "unknown operator not-defined");
    });

    // upstream: test_message_fetch.py NarrowBuilderTest.test_add_term_using_channel_operator_and_non_existing_operand_should_raise_error
    it("refuses an unknown channel", async () => {
      await bad(
        [{ operator: "channel", operand: "non-existing-channel" }],
        "unknown channel non-existing-channel",
      );
      await bad([["stream", "nope"]], "unknown channel nope");
    });

    // upstream: test_message_fetch.py NarrowBuilderTest.test_add_term_using_channels_operator_and_invalid_operand_should_raise_error
    it("refuses an unknown channels operand", async () => {
      await bad(
        [{ operator: "channels", operand: "invalid_operands" }],
        "unknown channels operand invalid_operands",
      );
    });

    // upstream: test_message_fetch.py NarrowBuilderTest.test_add_term_using_non_supported_operator_should_raise_error
    it("refuses an unknown is operand", async () => {
      await bad(
        [{ operator: "is", operand: "non_supported" }],
        "unknown 'is' operand non_supported",
      );
    });

    // upstream: test_message_fetch.py NarrowBuilderTest.test_add_term_using_has_operator_non_supported_operand_should_raise_error
    it("refuses an unknown has operand", async () => {
      await bad(
        [{ operator: "has", operand: "non_supported" }],
        "unknown 'has' operand non_supported",
      );
    });

    // upstream: test_message_fetch.py NarrowBuilderTest.test_add_term_using_sender_operator_with_non_existing_user_as_operand
    it("refuses an unknown sender", async () => {
      await bad(
        [{ operator: "sender", operand: "non-existing@zulip.com" }],
        "unknown user non-existing@zulip.com",
      );
      await bad([{ operator: "sender", operand: 999999 }], "unknown user 999999");
    });

    // upstream: test_message_fetch.py NarrowBuilderTest.test_add_term_using_dm_operator_not_the_same_user_as_operand_and_negated / test_bad_narrow_nonexistent_email
    it("refuses a dm with an unknown user", async () => {
      await bad(
        [{ operator: "dm", operand: "non-existing@zulip.com" }],
        "unknown user in non-existing@zulip.com",
      );
    });

    // upstream: test_message_fetch.py NarrowBuilderTest.test_add_term_using_dm_including_operator_with_non_existing_user
    it("refuses dm-including an unknown user", async () => {
      await bad(
        [{ operator: "dm-including", operand: "non-existing@zulip.com" }],
        "unknown user non-existing@zulip.com",
      );
    });

    // upstream: test_message_fetch.py NarrowBuilderTest.test_add_term_using_id_operator_invalid
    it("refuses an id operand that is no message ID", async () => {
      await bad([{ operator: "id", operand: "notanint" }], "Invalid message ID");
    });

    // upstream: test_message_fetch.py NarrowBuilderTest.test_add_term_using_channel_and_dm_operators (check_not_both_channel_and_dm_narrow)
    it("refuses a narrow that is both a channel and a DM narrow", async () => {
      const desc = "No message can be both a channel message and direct message";
      await bad(
        [
          { operator: "channel", operand: "general" },
          { operator: "is", operand: "dm" },
        ],
        desc,
      );
      await bad(
        [
          { operator: "topic", operand: "x" },
          { operator: "dm", operand: [1] },
        ],
        desc,
      );
      const ok = await get(server(), {
        anchor: "newest",
        num_before: 1,
        num_after: 0,
        narrow: [
          { operator: "channel", operand: "general" },
          { operator: "is", operand: "dm", negated: true },
        ],
      });
      expect(ok.status).toBe(200);
    });

    // upstream: test_message_fetch.py GetOldMessagesTest.test_get_messages_with_search_with_empty_operand (check_required_string)
    it("refuses a blank search operand as BAD_REQUEST", async () => {
      for (const operand of ["", "   "]) {
        const res = await get(server(), {
          anchor: "newest",
          num_before: 1,
          num_after: 0,
          narrow: [{ operator: "search", operand }],
        });
        expect(res.status).toBe(400);
        expect(res.body).toMatchObject({ code: "BAD_REQUEST", msg: "operand cannot be blank." });
      }
    });

    // upstream: test_message_fetch.py GetOldMessagesTest.test_with_operator_invalid_message (update_narrow_terms_containing_with_operator)
    it("refuses a with operand the user cannot reach, unless the rest names a conversation", async () => {
      await bad([{ operator: "with", operand: 99999999 }], "Invalid 'with' operator");
      const ok = await get(server(), {
        anchor: "newest",
        num_before: 1,
        num_after: 0,
        narrow: [
          { operator: "channel", operand: "general" },
          { operator: "topic", operand: "x" },
          { operator: "with", operand: 99999999 },
        ],
      });
      expect(ok.status).toBe(200);
    });

    // upstream: test_message_fetch.py MessagesInNarrowTest (matches_narrow shares the narrow errors)
    it("answers BAD_NARROW from matches_narrow too", async () => {
      const res = await rawRequest(server(), "bot", "GET", "/messages/matches_narrow", {
        msg_ids: "[1]",
        narrow: JSON.stringify([{ operator: "channel", operand: "nope" }]),
      });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ code: "BAD_NARROW", desc: "unknown channel nope" });
    });
  },
);

// Contract: GET /messages, matches_narrow, flags/narrow and mark_topic_as_read, against the sandbox (and a real server when configured).
import { beforeAll, expect, it } from "vitest";
import { describeContract, failure, listen, needSandbox, rawRequest } from "./contract/servers.js";

describeContract(
  "narrows: GET /messages, matches_narrow, flags/narrow, mark_topic_as_read",
  (server) => {
    const ids: number[] = [];
    beforeAll(async () => {
      if (!server().sandbox) return;
      const mia = server().client("member");
      // Five messages to the bot's channels, unread for the bot: topics a, a, b, a, and one DM.
      for (const [topic, content] of [
        ["a", "apple pie"],
        ["a", "banana split"],
        ["b", "apple crumble"],
        ["a", "cherry **tart**"],
      ] as const) {
        ids.push((await mia.messages.send({ type: "channel", to: "sandbox", topic, content })).id);
      }
      ids.push(
        (
          await mia.messages.send({
            type: "direct",
            to: [server().sandbox!.bot.userId],
            content: "apple dm",
          })
        ).id,
      );
    });

    it("lists a window around the anchor with found_* and include_anchor", async (ctx) => {
      needSandbox(ctx, server());
      const narrow = [{ operator: "channel", operand: "sandbox" }];
      const all = await server().client().messages.list({
        anchor: "oldest",
        num_before: 0,
        num_after: 100,
        narrow,
      });
      expect(all.messages.map((m) => m.id)).toEqual(ids.slice(0, 4));
      expect(all).toMatchObject({ found_oldest: true, found_newest: true });
      const mid = await server().client().messages.list({
        anchor: ids[1]!,
        num_before: 1,
        num_after: 1,
        narrow,
      });
      expect(mid.messages.map((m) => m.id)).toEqual([ids[0], ids[1], ids[2]]);
      expect(mid).toMatchObject({
        anchor: ids[1],
        found_anchor: true,
        // As the server: exactly num_before older messages is not "found the oldest".
        found_oldest: false,
        found_newest: false,
      });
      const excl = await server()
        .client()
        .messages.list({
          anchor: String(ids[1]),
          include_anchor: false,
          num_before: 0,
          num_after: 1,
          narrow,
        });
      expect(excl.messages.map((m) => m.id)).toEqual([ids[2]]);
      const newest = await server().client().messages.list({
        anchor: "newest",
        num_before: 2,
        num_after: 0,
        narrow,
      });
      expect(newest.messages.map((m) => m.id)).toEqual([ids[2], ids[3]]);
      expect(newest.found_newest).toBe(true);
    });

    it("filters by topic, sender, dm, is:, has: and id, pairs or objects, negated", async (ctx) => {
      needSandbox(ctx, server());
      const list = async (narrow: unknown) =>
        (
          await server()
            .client()
            .messages.list({
              anchor: "oldest",
              num_before: 0,
              num_after: 100,
              narrow: narrow as never,
            })
        ).messages.map((m) => m.id);
      const miaEmail = server().sandbox!.user("mia").email;
      expect(
        await list([
          ["channel", "sandbox"],
          ["topic", "a"],
        ]),
      ).toEqual([ids[0], ids[1], ids[3]]);
      expect(
        await list([{ operator: "topic", operand: "a", negated: true }, ["channel", "sandbox"]]),
      ).toEqual([ids[2]]);
      expect(await list([["dm", miaEmail]])).toEqual([ids[4]]);
      expect(await list([["is", "dm"]])).toEqual([ids[4]]);
      expect(
        await list([
          ["sender", miaEmail],
          ["id", String(ids[2])],
        ]),
      ).toEqual([ids[2]]);
      expect((await list([["is", "unread"]])).filter((id) => ids.includes(id))).toEqual(ids);
      expect(await list([["has", "link"]])).toEqual([]);
    });

    it("search matches words and highlights them in match_content and match_subject", async (ctx) => {
      needSandbox(ctx, server());
      const res = await server()
        .client()
        .messages.list({
          anchor: "oldest",
          num_before: 0,
          num_after: 100,
          narrow: [{ operator: "search", operand: "apple" }],
        });
      expect(res.messages.map((m) => m.id)).toEqual([ids[0], ids[2], ids[4]]);
      expect(res.messages[0]!.match_content).toBe(
        '<p><span class="highlight">apple</span> pie</p>',
      );
      const matches = await server()
        .client()
        .messages.matchesNarrow({
          msg_ids: ids,
          narrow: [{ operator: "search", operand: "apple" }],
        });
      expect(Object.keys(matches.messages).map(Number)).toEqual([ids[0], ids[2], ids[4]]);
      expect(matches.messages[String(ids[2])]).toEqual({
        match_content: '<p><span class="highlight">apple</span> crumble</p>',
        match_subject: "b",
      });
    });

    it("refuses an unknown narrow operator with BAD_NARROW and its desc", async () => {
      const error = await failure(
        server()
          .client()
          .messages.list({
            anchor: "newest",
            num_before: 1,
            num_after: 0,
            narrow: [{ operator: "colour", operand: "blue" }],
          }),
      );
      expect(error).toMatchObject({ code: "BAD_NARROW" });
      expect(String(error.msg)).toContain("colour");
      const matches = await failure(
        server()
          .client()
          .messages.matchesNarrow({
            msg_ids: [1],
            narrow: [{ operator: "colour", operand: "x" }],
          }),
      );
      expect(matches).toMatchObject({ code: "BAD_NARROW" });
    });

    it("matches_narrow and flags/narrow name their missing parameters", async () => {
      const res = await rawRequest(server(), server().main, "GET", "/messages/matches_narrow", {
        narrow: "[]",
      });
      expect(res.body).toMatchObject({ code: "REQUEST_VARIABLE_MISSING", var_name: "msg_ids" });
      for (const missing of ["anchor", "num_before", "num_after", "op", "flag"]) {
        const fields: Record<string, string> = {
          anchor: "newest",
          num_before: "0",
          num_after: "0",
          narrow: "[]",
          op: "add",
          flag: "starred",
        };
        delete fields[missing];
        const r = await rawRequest(
          server(),
          server().main,
          "POST",
          "/messages/flags/narrow",
          fields,
        );
        expect(r.body).toMatchObject({ code: "REQUEST_VARIABLE_MISSING", var_name: missing });
      }
    });

    it("updates flags over a range: counts, processed IDs, found_* and events", async (ctx) => {
      needSandbox(ctx, server());
      const queue = await listen(server().client(), { event_types: ["update_message_flags"] });
      const narrow = [{ operator: "channel", operand: "sandbox" }];
      const first = await server().client().messages.updateFlagsForNarrow({
        anchor: "first_unread",
        num_before: 0,
        num_after: 1,
        narrow,
        op: "add",
        flag: "starred",
      });
      expect(first).toMatchObject({
        processed_count: 2,
        updated_count: 2,
        first_processed_id: ids[0],
        last_processed_id: ids[1],
        // num_before 0: the server never reports found_oldest for it (unless anchored at oldest).
        found_oldest: false,
        found_newest: false,
      });
      const again = await server().client().messages.updateFlagsForNarrow({
        anchor: "oldest",
        num_before: 0,
        num_after: 10,
        narrow,
        op: "add",
        flag: "starred",
      });
      expect(again).toMatchObject({ processed_count: 4, updated_count: 2, found_newest: true });
      expect(again).not.toHaveProperty("ignored_because_not_subscribed_channels");
      const events = await queue.drain();
      expect(events.map((e) => e.messages)).toEqual([
        [ids[0], ids[1]],
        [ids[2], ids[3]],
      ]);
      const starred = await server()
        .client()
        .messages.list({
          anchor: "newest",
          num_before: 10,
          num_after: 0,
          narrow: [["is", "starred"]],
        });
      expect(starred.messages.map((m) => m.id)).toEqual(ids.slice(0, 4));
    });

    it("removing read skips channels the user left, listed in ignored_because_not_subscribed_channels", async (ctx) => {
      needSandbox(ctx, server());
      const realm = server().sandbox!.realm;
      const botId = server().sandbox!.bot.userId;
      await server().client().messages.updateFlagsForNarrow({
        anchor: "oldest",
        num_before: 0,
        num_after: 100,
        narrow: [],
        op: "add",
        flag: "read",
      });
      const sandboxChannel = realm.channelByName("sandbox")!;
      sandboxChannel.subscribers.delete(botId);
      try {
        const res = await server()
          .client()
          .messages.updateFlagsForNarrow({
            anchor: "oldest",
            num_before: 0,
            num_after: 100,
            narrow: [["sender", server().sandbox!.user("mia").email]],
            op: "remove",
            flag: "read",
          });
        expect(res.ignored_because_not_subscribed_channels).toEqual([sandboxChannel.streamId]);
        expect(res.updated_count).toBe(1); // only the DM
      } finally {
        sandboxChannel.subscribers.add(botId);
      }
    });

    it("mark_topic_as_read marks one topic read (topic rule applied)", async (ctx) => {
      needSandbox(ctx, server());
      const sandboxId = server().sandbox!.realm.channelByName("sandbox")!.streamId;
      await server()
        .client()
        .messages.updateFlagsForNarrow({
          anchor: "oldest",
          num_before: 0,
          num_after: 100,
          narrow: [["channel", "sandbox"]],
          op: "remove",
          flag: "read",
        });
      await server().client().topics.markAsRead({ stream_id: sandboxId, topic_name: "a" });
      const unread = await server()
        .client()
        .messages.list({
          anchor: "oldest",
          num_before: 0,
          num_after: 100,
          narrow: [
            ["channel", "sandbox"],
            ["is", "unread"],
          ],
        });
      expect(unread.messages.map((m) => m.id)).toEqual([ids[2]]);
      expect(
        await failure(server().client().topics.markAsRead({ stream_id: 9999, topic_name: "a" })),
      ).toMatchObject({
        code: "BAD_REQUEST",
      });
    });
  },
);

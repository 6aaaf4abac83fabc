import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from "vitest";
import { createTestBot, type TestBot } from "topicbot/testing";
import { definePlugin, type AnyEvent, type EventOf } from "topicbot";
import { captureLog } from "../helpers/log.js";
import { post, until } from "../helpers/reliability.js";

describe("bot.on: every event type on the typed bus", () => {
  const seen: AnyEvent[] = [];
  const log = captureLog();
  let t: TestBot;
  const watcher = definePlugin({
    name: "watcher",
    setup(bot) {
      bot.on("reaction", (event) => {
        expectTypeOf(event.emoji_name).toEqualTypeOf<string>();
        seen.push(event);
      });
      bot.on("realm_user", (event) => {
        if (event.op === "add") expectTypeOf(event.person.full_name).toEqualTypeOf<string>();
        seen.push(event);
      });
      bot.on("typing", (event) => void seen.push(event));
      bot.on("alert_words", (event) => {
        expectTypeOf(event).toEqualTypeOf<AnyEvent>();
        seen.push(event);
      });
      bot.on("message", (event) => void seen.push(event));
      bot.on("presence", () => {
        throw new Error("listener bug");
      });
    },
  });
  beforeAll(async () => {
    t = await createTestBot({
      plugins: [watcher],
      sandbox: { heartbeatSeconds: 0.2 },
      logger: log.logger,
    });
  });
  afterAll(() => t.close());

  it("delivers reaction, realm_user, typing and unknown events, each parsed and typed", async () => {
    const { sandbox } = t;
    const id = post(sandbox, "react to me");
    await t.clientFor("mia").messages.addReaction({ message_id: id, emoji_name: "tada" });
    const { user_id } = await t
      .clientFor("olivia")
      .users.create({ email: "new@example.com", password: "s3cret-pass", full_name: "New Person" });
    const bot = sandbox.bot.userId;
    const mia = sandbox.user("mia");
    sandbox.realm.pushEvent([bot], {
      type: "typing",
      op: "start",
      message_type: "direct",
      sender: { user_id: mia.userId, email: mia.email },
      recipients: [{ user_id: bot, email: sandbox.bot.email }],
    });
    sandbox.realm.pushEvent([bot], { type: "alert_words", alert_words: ["deploy"] });
    await until(() => seen.some((e) => e.type === "alert_words"), "an event without a schema");
    expect(seen.find((e) => e.type === "message")).toMatchObject({ message: { id } });
    expect(seen.find((e) => e.type === "reaction")).toMatchObject({
      op: "add",
      message_id: id,
      emoji_name: "tada",
      user_id: mia.userId,
    });
    expect(seen.find((e) => e.type === "realm_user")).toMatchObject({
      op: "add",
      person: { user_id, full_name: "New Person" },
    });
    expect(seen.find((e) => e.type === "typing")).toMatchObject({ op: "start" });
    expect(seen.find((e) => e.type === "alert_words")).toMatchObject({ alert_words: ["deploy"] });
  });

  it("skips a malformed event of a known type with one warning, and logs listener errors with the plugin", async () => {
    const { sandbox } = t;
    const bot = sandbox.bot.userId;
    sandbox.realm.pushEvent([bot], { type: "typing", op: "sideways" });
    sandbox.realm.pushEvent([bot], {
      type: "presence",
      user_id: 1,
      email: "x@example.com",
      server_timestamp: 1,
      presence: { website: { status: "active", timestamp: 1 } },
    });
    sandbox.realm.pushEvent([bot], { type: "alert_words", alert_words: [], marker: true });
    await until(() => seen.some((e) => e.type === "alert_words" && "marker" in e), "the marker");
    expect(seen.filter((e) => e.type === "typing")).toHaveLength(1);
    const lines = log.lines();
    expect(lines.find((l) => l.msg === "skipping a malformed typing event")).toMatchObject({
      level: 40,
      eventType: "typing",
    });
    expect(
      lines.find((l) => String(l.msg).includes("failed handling a presence event")),
    ).toMatchObject({
      plugin: "watcher",
      eventType: "presence",
      level: 50,
    });
  });

  it("types listeners per event", () => {
    expectTypeOf<EventOf<"update_message">["message_id"]>().toEqualTypeOf<number>();
    expectTypeOf<EventOf<"delete_message">["message_type"]>().toEqualTypeOf<"stream" | "private">();
    expectTypeOf<EventOf<"user_status">["user_id"]>().toEqualTypeOf<number>();
    expectTypeOf<EventOf<"restart">["type"]>().toEqualTypeOf<"restart">();
    expectTypeOf<EventOf<"stream">["op"]>().toEqualTypeOf<string>();
    expectTypeOf<EventOf<"subscription">["type"]>().toEqualTypeOf<"subscription">();
    expectTypeOf<EventOf<"realm_user">["op"]>().toEqualTypeOf<"add" | "update" | "remove">();
    expectTypeOf<EventOf<"no_such_type">>().toEqualTypeOf<AnyEvent>();
  });
});

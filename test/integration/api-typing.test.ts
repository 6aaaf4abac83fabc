// Contract: typing notifications (POST /typing) and their `typing` events.
import { expect, it } from "vitest";
import { describeContract, eventsDuring, failure, need } from "./contract/servers.js";

describeContract("typing notifications", (server) => {
  it("a DM's typing reaches its recipients, with who types and to whom", async (ctx) => {
    need(ctx, server(), "member");
    const member = server().client("member");
    const me = await server().client().users.me();
    const memberId = (await member.users.me()).user_id;
    const events = await eventsDuring(member, ["typing"], () =>
      server()
        .client()
        .typing.set({ op: "start", type: "direct", to: [memberId] }),
    );
    expect(events).toEqual([
      expect.objectContaining({
        type: "typing",
        op: "start",
        message_type: "direct",
        sender: expect.objectContaining({ user_id: me.user_id }),
        recipients: expect.arrayContaining([expect.objectContaining({ user_id: memberId })]),
      }),
    ]);
  });

  // As the server's do_send_stream_typing_notification: every subscriber, the typist included.
  it("a channel topic's typing reaches the subscribers, the typist included", async (ctx) => {
    need(ctx, server(), "member");
    const member = server().client("member");
    const { subscriptions } = await member.subscriptions.list();
    const general = subscriptions.find((s) => s.name === "general")!;
    const stop = {
      op: "stop" as const,
      type: "channel" as const,
      stream_id: general.stream_id,
      topic: "t",
    };
    const seenByMember = await eventsDuring(member, ["typing"], () =>
      server().client().typing.set(stop),
    );
    expect(seenByMember).toEqual([
      expect.objectContaining({
        op: "stop",
        message_type: "stream",
        stream_id: general.stream_id,
        topic: "t",
      }),
    ]);
    const seenByTypist = await eventsDuring(server().client(), ["typing"], () =>
      server().client().typing.set(stop),
    );
    expect(seenByTypist).toEqual([
      expect.objectContaining({ op: "stop", message_type: "stream", topic: "t" }),
    ]);
  });

  it("refuses a DM without recipients", async () => {
    expect(
      await failure(server().client().typing.set({ op: "start", type: "direct" })),
    ).toMatchObject({
      code: "BAD_REQUEST",
    });
  });
});

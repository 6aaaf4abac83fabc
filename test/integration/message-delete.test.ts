// DELETE /messages/{id} over loopback HTTP against the sandbox: who may delete (test_message_delete.py's cases), the time limit, the realm's groups, and the delete_message event.
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { apiFailure, sandboxPeople } from "../helpers/sandbox-people.js";
import { ManualClock, startSandbox, type Sandbox } from "../../src/sandbox/index.js";
import type { RealmSettings } from "../../src/sandbox/model.js";

describe("DELETE /messages/{message_id}", () => {
  let sandbox: Sandbox | undefined;
  let clock: ManualClock;
  const people = sandboxPeople(() => sandbox!);
  const as = people.as;
  const send = async (handle: string, content = "hello", topic = "deletes"): Promise<number> =>
    (await as(handle).messages.send({ type: "channel", to: "general", topic, content })).id;
  const exists = async (id: number): Promise<boolean> =>
    as("olivia")
      .messages.get({ message_id: id })
      .then(
        () => true,
        () => false,
      );

  async function start(settings: Partial<RealmSettings> = {}): Promise<void> {
    clock = new ManualClock(Date.parse("2026-03-02T09:00:00Z"));
    sandbox = await startSandbox({ clock, settings });
  }
  afterEach(async () => {
    await people.close();
    await sandbox?.close();
    sandbox = undefined;
  });
  afterAll(async () => people.close());

  // test_message_delete.py: test_delete_message_by_user (own message, within the limit; others' not).
  it("lets a member delete their own message within the limit, and nobody else's", async () => {
    await start();
    const own = await send("mia");
    const other = await send("gus");
    const refused = await apiFailure(as("mia").messages.remove({ message_id: other }));
    expect(refused).toMatchObject({
      status: 400,
      code: "BAD_REQUEST",
      msg: "You don't have permission to delete this message",
    });
    await as("mia").messages.remove({ message_id: own });
    expect(await exists(own)).toBe(false);
    expect(await exists(other)).toBe(true);
    // Gone: a second delete (or a read) finds no such message.
    const again = await apiFailure(as("mia").messages.remove({ message_id: own }));
    expect(again.msg).toBe("Invalid message(s)");
  });

  // test_message_delete.py: test_delete_message_by_user, past message_content_delete_limit_seconds.
  it("refuses the sender once the time limit passed (no grace); administrators delete any, any time", async () => {
    await start();
    const id = await send("mia");
    clock.advance(600_000);
    const late = await send("mia");
    clock.advance(1_000);
    const refused = await apiFailure(as("mia").messages.remove({ message_id: id }));
    expect(refused.msg).toBe("The time limit for deleting this message has passed");
    await as("mia").messages.remove({ message_id: late });
    await as("adam").messages.remove({ message_id: id });
    expect(await exists(id)).toBe(false);
  });

  it("follows PATCH /realm's message_content_delete_limit_seconds (unlimited: no limit)", async () => {
    await start();
    const id = await send("mia");
    clock.advance(86_400_000);
    await as("adam").realm.update({ message_content_delete_limit_seconds: "unlimited" });
    await as("mia").messages.remove({ message_id: id });
    expect(await exists(id)).toBe(false);
  });

  // test_message_delete.py: the realm's can_delete_own_message_group and can_delete_any_message_group.
  it("follows the realm's delete groups; a bot's owner may delete the bot's messages", async () => {
    await start({
      canDeleteOwnMessageGroup: "role:moderators",
      canDeleteAnyMessageGroup: "role:nobody",
    });
    const mias = await send("mia");
    const maxs = await send("max");
    const bots = await send("bot");
    expect((await apiFailure(as("mia").messages.remove({ message_id: mias }))).msg).toBe(
      "You don't have permission to delete this message",
    );
    expect((await apiFailure(as("adam").messages.remove({ message_id: mias }))).msg).toBe(
      "You don't have permission to delete this message",
    );
    await as("max").messages.remove({ message_id: maxs });
    await as("olivia").messages.remove({ message_id: bots }); // olivia owns the bot
    expect([await exists(mias), await exists(maxs), await exists(bots)]).toEqual([
      true,
      false,
      false,
    ]);
  });

  it("refuses a message the user cannot see as an invalid message", async () => {
    await start();
    const dm = (
      await as("mia").messages.send({
        type: "direct",
        to: [sandbox!.user("max").userId],
        content: "hi",
      })
    ).id;
    expect((await apiFailure(as("gus").messages.remove({ message_id: dm }))).msg).toBe(
      "Invalid message(s)",
    );
  });

  it("sends delete_message with the channel and topic: message_ids to bulk_message_deletion queues, message_id to others", async () => {
    await start();
    const bulk = await as("max").events.register({
      event_types: ["delete_message"],
      client_capabilities: { bulk_message_deletion: true },
    });
    const single = await as("bot").events.register({ event_types: ["delete_message"] });
    const id = await send("mia", "soon gone", "to delete");
    const dm = (
      await as("mia").messages.send({
        type: "direct",
        to: [sandbox!.user("bot").userId],
        content: "x",
      })
    ).id;
    await as("mia").messages.remove({ message_id: id });
    await as("mia").messages.remove({ message_id: dm });
    const events = async (queue_id: string) =>
      (
        await as(queue_id === bulk.queue_id ? "max" : "bot").events.get({
          queue_id,
          last_event_id: -1,
          dont_block: true,
        })
      ).events.map(({ id: _id, ...event }) => event);
    const general = sandbox!.realm.channelByName("general")!.streamId;
    expect(await events(bulk.queue_id!)).toEqual([
      {
        type: "delete_message",
        message_type: "stream",
        stream_id: general,
        topic: "to delete",
        message_ids: [id],
      },
    ]);
    expect(await events(single.queue_id!)).toEqual([
      {
        type: "delete_message",
        message_type: "stream",
        stream_id: general,
        topic: "to delete",
        message_id: id,
      },
      { type: "delete_message", message_type: "private", message_id: dm },
    ]);
    // Gone from history too.
    const { messages } = await as("mia").messages.list({
      anchor: "newest",
      num_before: 50,
      num_after: 0,
      narrow: [{ operator: "topic", operand: "to delete" }],
    });
    expect(messages.map((m) => m.id)).not.toContain(id);
  });
});

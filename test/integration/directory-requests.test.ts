// What the bot asks the sandbox about users: one user by ID when first met, nothing more on a realm_user event, never the whole list for an ID.
import { subscribe, unsubscribe } from "node:diagnostics_channel";
import type { IncomingMessage } from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import { arg, definePlugin } from "topicbot";
import { createTestBot, type TestBot } from "topicbot/testing";
import remind from "../../plugins/remind/index.js";

const whois = definePlugin({
  name: "whois",
  description: "Names a user.",
  setup(bot) {
    bot.command("whois", { description: "A user", args: { who: arg.user() } }, async (ctx) => {
      const { who } = ctx.command.args;
      await ctx.reply(`${who.fullName} <${who.email}> ${who.role}`);
    });
  },
});

/** Records `METHOD /path` of every request the bot (by its credentials) makes to any loopback server. */
function botRequests(t: TestBot): { list: string[]; stop(): void } {
  const auth = `Basic ${Buffer.from(`${t.sandbox.bot.email}:${t.sandbox.bot.apiKey}`).toString("base64")}`;
  const list: string[] = [];
  const onRequest = (message: unknown) => {
    const { request } = message as { request: IncomingMessage };
    if (request.headers.authorization === auth) list.push(`${request.method} ${request.url}`);
  };
  subscribe("http.server.request.start", onRequest);
  return { list, stop: () => unsubscribe("http.server.request.start", onRequest) };
}

/** The user-list and one-user requests among `requests`. */
const userCalls = (requests: string[]) =>
  requests.filter((r) => /^GET \/api\/v1\/users(\/\d+|\?|$)/.test(r));

describe("the bot's user lookups against the sandbox", () => {
  let t: TestBot;
  let requests: ReturnType<typeof botRequests> | undefined;
  afterEach(async () => {
    requests?.stop();
    await t.close();
  });

  it("fetches a user it has not met by ID, and applies a rename event without fetching again", async () => {
    t = await createTestBot({ plugins: [whois] });
    requests = botRequests(t);
    const max = t.user("max");
    await t.send(`!whois @**Max Moderator|${max.userId}**`);
    await t.expectReply(new RegExp(`^${max.fullName} <${max.email}> moderator$`));
    expect(userCalls(requests.list)).toContain(`GET /api/v1/users/${max.userId}`);
    const before = userCalls(requests.list).length;

    await t
      .clientFor("olivia")
      .users.updateByEmail({ email: max.email, full_name: "Max Renamed", role: 200 });
    await t.send(`!whois @**Max|${max.userId}**`);
    await t.expectReply(`Max Renamed <${max.email}> administrator`);
    // The event changed the cached user in place: no second GET /users/{id}, no list.
    expect(userCalls(requests.list).length).toBe(before);
    expect(requests.list.some((r) => /^GET \/api\/v1\/users(\?|$)/.test(r))).toBe(false);
  });

  it("registers without asking for realm_user", async () => {
    t = await createTestBot({ plugins: [whois] });
    expect(t.bot.registration?.realm_users).toBeUndefined();
    expect(t.bot.registration?.queue_id).toBeDefined();
  });

  it("remind resolves @user by ID or by name without listing users", async () => {
    t = await createTestBot({ plugins: [remind], now: "2025-03-03T08:00:00Z" });
    requests = botRequests(t);
    const adam = t.user("adam");
    await t.send(`!remind @**Adam Admin|${adam.userId}** in 10 minutes to review`);
    await t.expectReply(/^I'll remind @_\*\*Adam Admin\|\d+\*\* /);
    const lists = () => requests!.list.filter((r) => /^GET \/api\/v1\/users(\?|$)/.test(r));
    expect(lists()).toEqual([]);
    await t.send("!remind @**Olivia Owner** in 10 minutes to plan");
    await t.expectReply(/^I'll remind @_\*\*Olivia Owner\|\d+\*\* /);
    await t.send("!remind @**Max Moderator** in 10 minutes to plan");
    await t.expectReply(/^I'll remind @_\*\*Max Moderator\|\d+\*\* /);
    // Someone joins and is named at once.
    await t.createUser({ handle: "zoe", fullName: "Zoe Zed" });
    await t.send("!remind @**zoe zed** in 10 minutes to join");
    await t.expectReply(/^I'll remind @_\*\*Zoe Zed\|\d+\*\* /);
    await t.send("!remind @**Nobody Here** in 10 minutes to join");
    await t.expectReply("I don't know a user @\u200b**Nobody Here**.");
    // The server's rendering of each message named the user: one GET /messages/{id} per name.
    expect(lists()).toEqual([]);
  });
});

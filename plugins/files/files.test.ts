import { afterEach, describe, expect, it } from "vitest";
import { createTestBot, describePluginDefaults, type TestBot } from "topicbot/testing";
import files, { fileName } from "./index.js";

describePluginDefaults(files);

describe("files", () => {
  let t: TestBot;
  afterEach(async () => {
    await t.close();
  });

  it("saves text as a file and answers with its link", async () => {
    t = await createTestBot({ plugins: [files] });
    await t.send("!file notes.txt remember the milk");
    const reply = await t.expectReply(
      /^Saved \[notes\.txt\]\(\/user_uploads\/\S+\) \(18 bytes\)\.$/,
    );
    const upload = t.uploads().at(-1)!;
    expect(reply.content).toContain(upload.url);
    expect(upload).toMatchObject({ filename: "notes.txt", ownerId: t.sandbox.bot.userId });
    expect(upload.data.toString()).toBe("remember the milk\n");

    await t.send("!file deploy.sh ```bash\nnpm ci\nnpm run deploy\n```");
    await t.expectReply(/^Saved \[deploy\.sh\]/);
    expect(t.uploads().at(-1)!.data.toString()).toBe("npm ci\nnpm run deploy\n");
    await t.dialog([["!file", /^Usage: `!file <name> <text>`/]]);
    // An absurd name: one short reply, not a 9,000-character link cut by the server.
    await t.send(`!file ${"n".repeat(9000)} x`);
    expect((await t.expectReply(/^Saved \[n{97}\.md\]/)).content.length).toBeLessThan(300);
    // An absurd unknown command is echoed cut, in one short reply.
    await t.send(`!${"q".repeat(9000)}`);
    expect((await t.expectReply(/^I don't know the command `q+…`/)).content.length).toBeLessThan(
      300,
    );
    await t.expectNoReply();
  });

  it("exports a topic as a Markdown transcript", async () => {
    t = await createTestBot({ plugins: [files], now: "2025-03-03T08:00:00Z" });
    await t.send("first thought", { as: "adam", topic: "design" });
    await t.send("second thought", { as: "max", topic: "design" });
    await t.send("elsewhere", { as: "max", topic: "other" });
    await t.send("!export", { topic: "design" });
    await t.expectReply(/^Exported 2 messages: \[general-design\.md\]\(\/user_uploads\/\S+\)$/);
    expect(t.uploads().at(-1)!.data.toString()).toBe(
      "# #general > design\n\n**Adam Admin** (2025-03-03T08:00:00Z):\n\nfirst thought\n\n**Max Moderator** (2025-03-03T08:00:00Z):\n\nsecond thought\n",
    );
    await t.dialog([["export", "`export` works in a channel topic."]], { dm: true });
  });

  it("exports nothing a newer member of a protected-history channel could not read", async () => {
    t = await createTestBot({ plugins: [files], now: "2025-03-03T08:00:00Z" });
    // Private channels: "staff" keeps its history from new members (the default), "ops" shares it.
    const staff = t.realm.addChannel("staff", "", true);
    const ops = t.realm.addChannel("ops", "", true, true);
    for (const channel of [staff, ops])
      for (const who of [t.sandbox.bot.userId, t.user("adam").userId])
        t.realm.subscribe(channel, who);
    await t.send("payroll is in the drive", { as: "adam", channel: "staff", topic: "pay" });
    await t.send("deploy key rotated", { as: "adam", channel: "ops", topic: "keys" });
    t.realm.subscribe(staff, t.user("mia").userId);
    t.realm.subscribe(ops, t.user("mia").userId);
    await t.send("!export", { as: "mia", channel: "staff", topic: "pay" });
    await t.expectReply(
      "I can't export this topic: this channel shows its members only what was sent while they were subscribed, and I can't tell when you joined.",
    );
    expect(
      t
        .uploads()
        .map((u) => u.data.toString())
        .join(""),
    ).not.toContain("payroll");
    await t.send("!export", { as: "mia", channel: "ops", topic: "keys" });
    await t.expectReply(/^Exported 1 message: /);
    expect(t.uploads().at(-1)!.data.toString()).toContain("deploy key rotated");
    // Adam has been in "staff" all along; the rule is about what the bot can vouch for, so the
    // same answer: the bot cannot tell who was there when.
    await t.send("!export", { as: "adam", channel: "staff", topic: "pay" });
    await t.expectReply(/^I can't export this topic: this channel shows its members only/);
  });
});

describe("fileName", () => {
  it("keeps safe names and adds .md when there is no extension", () => {
    expect(fileName("report.csv", "x")).toBe("report.csv");
    expect(fileName("my notes", "x")).toBe("my-notes.md");
    expect(fileName("../../etc/passwd", "x")).toBe("etc-passwd.md");
    expect(fileName("***", "note")).toBe("note.md");
    expect(fileName("x".repeat(9000), "note")).toBe(`${"x".repeat(97)}.md`);
    expect(fileName(`${"y".repeat(200)}.csv`, "note")).toBe(`${"y".repeat(96)}.csv`);
  });
});

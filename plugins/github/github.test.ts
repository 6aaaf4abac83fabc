import { createHmac } from "node:crypto";
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClient, type ApiClient } from "topicbot/client";
import { startSandbox, type Sandbox } from "topicbot/sandbox";
import { createReceiver, type WebhookReceiver } from "topicbot/webhooks";
import { captureLog } from "../../test/helpers/log.js";
import { githubRoute, renderGithubEvent, GITHUB_EVENTS } from "./index.js";

const fixture = (name: string): Record<string, unknown> =>
  JSON.parse(readFileSync(new URL(`./fixtures/${name}.json`, import.meta.url), "utf8")) as Record<
    string,
    unknown
  >;
/** A fixture with some keys replaced (one level deep into `key`). */
const variant = (name: string, key: string, patch: Record<string, unknown>, top = {}) => {
  const f = fixture(name);
  return { ...f, ...top, [key]: { ...(f[key] as object), ...patch } };
};

describe("renderGithubEvent with the fixtures", () => {
  it("push: who, a compare link, each commit's first line and short hash", () => {
    expect(renderGithubEvent("push", fixture("push"))).toEqual({
      topic: "widgets",
      content: [
        "**ada-lovelace** [pushed 2 commits](https://github.com/octo-org/widgets/compare/6113728f27ae...0d1a26e67d8f) to `main`:",
        "* Fix rounding in the price widget ([b4f8e3a](https://github.com/octo-org/widgets/commit/b4f8e3a91c2d4e5f6a7b8c9d0e1f2a3b4c5d6e7f))",
        "* Add tests for [edge] cases ([0d1a26e](https://github.com/octo-org/widgets/commit/0d1a26e67d8f5eaf1f6ba5c57fc3c7d91ac0fd1c))",
      ].join("\n"),
    });
  });

  it("pull_request opened: topic per PR, branches, title and a quoted first paragraph", () => {
    expect(renderGithubEvent("pull_request", fixture("pull_request"))).toEqual({
      topic: "widgets / PR #42 Support currencies without minor units",
      content:
        "**grace-hopper** opened [PR #42](https://github.com/octo-org/widgets/pull/42) `zero-decimals` → `main`: **Support currencies without minor units**\n```quote\nYen and won have no cents; the widget showed `¥1,200.00`.\n```",
    });
  });

  it("issues opened: a mention in the title stays literal and the topic is cut to 60", () => {
    const message = renderGithubEvent("issues", fixture("issues"))!;
    expect(message.topic).toBe("widgets / Issue #40 Prices in yen show two decimals, which…");
    expect([...message.topic].length).toBeLessThanOrEqual(60);
    expect(message.content).toContain("which @\u200b**all** should see**");
    expect(message.content).not.toMatch(/@\*\*all\*\*/);
    expect(message.content).toMatch(
      /^\*\*alan-turing\*\* opened \[issue #40\]\(https:\/\/github.com\/octo-org\/widgets\/issues\/40\)/,
    );
  });

  it("keeps a quoted description's Markdown but not its mentions", () => {
    const body = "Ping @**all** and @_**Ada Lovelace** and @*backend*: see `code` and **bold**.";
    const pr = variant("pull_request", "pull_request", { body });
    expect(renderGithubEvent("pull_request", pr)!.content.split("\n").slice(1)).toEqual([
      "```quote",
      "Ping @\u200b**all** and @\u200b_**Ada Lovelace** and @\u200b*backend*: see `code` and **bold**.",
      "```",
    ]);
  });

  it("release published: tag link and name", () => {
    expect(renderGithubEvent("release", fixture("release"))).toEqual({
      topic: "widgets",
      content:
        "**ada-lovelace** published release [v2.3.0](https://github.com/octo-org/widgets/releases/tag/v2.3.0): Widgets 2.3: every currency.",
    });
  });

  it("workflow_run completed: conclusion, branch and run link", () => {
    expect(renderGithubEvent("workflow_run", fixture("workflow_run"))).toEqual({
      topic: "widgets",
      content:
        "Workflow **CI** :cross_mark: failed on `main` ([run #318](https://github.com/octo-org/widgets/actions/runs/13912345678)): Add tests for [edge] cases.",
    });
  });
});

describe("renderGithubEvent's other cases", () => {
  it("merged and unmerged closes, reopen, and noise ignored", () => {
    const merged = variant("pull_request", "pull_request", { merged: true }, { action: "closed" });
    expect(renderGithubEvent("pull_request", merged)!.content).toBe(
      "**grace-hopper** merged [PR #42](https://github.com/octo-org/widgets/pull/42) into `main`.",
    );
    const closed = variant("pull_request", "pull_request", {}, { action: "closed" });
    expect(renderGithubEvent("pull_request", closed)!.content).toMatch(
      /closed .* without merging\.$/,
    );
    const sync = { ...fixture("pull_request"), action: "synchronize" };
    expect(renderGithubEvent("pull_request", sync)).toBeUndefined();
    const reopened = { ...fixture("issues"), action: "reopened" };
    expect(renderGithubEvent("issues", reopened)!.content).toMatch(/^\*\*alan-turing\*\* reopened/);
    const notPlanned = variant(
      "issues",
      "issue",
      { state_reason: "not_planned" },
      { action: "closed" },
    );
    expect(renderGithubEvent("issues", notPlanned)!.content).toMatch(/closed .* as not planned\.$/);
    expect(
      renderGithubEvent("issues", { ...fixture("issues"), action: "labeled" }),
    ).toBeUndefined();
  });

  it("push: deleted branch, new tag, new branch, force-push and long pushes", () => {
    const base = fixture("push");
    expect(renderGithubEvent("push", { ...base, deleted: true, commits: [] })!.content).toBe(
      "**ada-lovelace** deleted branch `main`.",
    );
    expect(
      renderGithubEvent("push", { ...base, ref: "refs/tags/v2.3.0", commits: [] })!.content,
    ).toBe("**ada-lovelace** pushed tag `v2.3.0`.");
    expect(
      renderGithubEvent("push", { ...base, ref: "refs/heads/wip", created: true, commits: [] })!
        .content,
    ).toBe("**ada-lovelace** pushed new branch `wip`.");
    const commit = (base.commits as object[])[0]!;
    const many = { ...base, forced: true, commits: Array.from({ length: 8 }, () => commit) };
    const content = renderGithubEvent("push", many)!.content;
    expect(content).toMatch(/pushed 8 commits\]\(.*\) to `main` \(force-push\):/);
    expect(content.split("\n").filter((l) => l.startsWith("* Fix"))).toHaveLength(5);
    expect(content).toMatch(/\* … and 3 more$/);
  });

  it("workflow_run: success, skipped and in-progress runs", () => {
    const ok = variant("workflow_run", "workflow_run", { conclusion: "success" });
    expect(renderGithubEvent("workflow_run", ok)!.content).toMatch(
      /^Workflow \*\*CI\*\* :check: succeeded/,
    );
    const skipped = variant("workflow_run", "workflow_run", { conclusion: "skipped" });
    expect(renderGithubEvent("workflow_run", skipped)).toBeUndefined();
    expect(
      renderGithubEvent("workflow_run", { ...fixture("workflow_run"), action: "requested" }),
    ).toBeUndefined();
  });

  it("prerelease, other release actions, unknown events and junk payloads", () => {
    const pre = variant("release", "release", { prerelease: true, name: "v2.3.0" });
    expect(renderGithubEvent("release", pre)!.content).toBe(
      "**ada-lovelace** published pre-release [v2.3.0](https://github.com/octo-org/widgets/releases/tag/v2.3.0).",
    );
    expect(
      renderGithubEvent("release", { ...fixture("release"), action: "created" }),
    ).toBeUndefined();
    expect(renderGithubEvent("star", fixture("push"))).toBeUndefined();
    expect(renderGithubEvent("push", null)).toBeUndefined();
    expect(renderGithubEvent("pull_request", "text")).toBeUndefined();
  });

  it("covers each event it declares", () => {
    for (const event of GITHUB_EVENTS)
      expect(renderGithubEvent(event, fixture(event))).toBeDefined();
  });
});

describe("githubRoute through the receiver, posting to the sandbox", () => {
  const SECRET = "gh-secret-5b8e1d";
  let sandbox: Sandbox;
  let client: ApiClient;
  let receiver: WebhookReceiver;
  let url: string;
  const log = captureLog();

  let deliveries = 0;
  const deliver = (event: string, body: string, signature?: string) =>
    fetch(`${url}/github`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "x-github-event": event,
        "x-github-delivery": `72d3162e-cc78-11e3-81ab-${String(++deliveries).padStart(12, "0")}`,
        ...(signature ? { "x-hub-signature-256": signature } : {}),
      },
      body,
    });
  const signed = (body: string, secret = SECRET) =>
    `sha256=${createHmac("sha256", secret).update(body).digest("hex")}`;
  const channelMessages = () => sandbox.realm.messages.filter((m) => m.kind === "stream");

  beforeAll(async () => {
    sandbox = await startSandbox();
    client = createClient({
      site: sandbox.url,
      email: sandbox.bot.email,
      apiKey: sandbox.bot.apiKey,
    });
    receiver = createReceiver({ logger: log.logger });
    receiver.mount(
      githubRoute({
        secret: SECRET,
        channel: "general",
        send: (post) => client.messages.send({ type: "channel", ...post }),
      }),
    );
    ({ url } = await receiver.listen());
  });

  afterAll(async () => {
    await receiver.close();
    await client.close();
    await sandbox.close();
    expect(log.text()).not.toContain(SECRET);
  });

  it("posts a delivery with a good signature", async () => {
    const body = readFileSync(new URL("./fixtures/release.json", import.meta.url), "utf8");
    const res = await deliver("release", body, signed(body));
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ ok: true });
    const last = channelMessages().at(-1)!;
    expect(last.topic).toBe("widgets");
    expect(last.content).toMatch(/^\*\*ada-lovelace\*\* published release \[v2\.3\.0\]/);
    expect(last.senderId).toBe(sandbox.bot.userId);
  });

  it("answers 401 to a bad or missing signature and posts nothing", async () => {
    const before = channelMessages().length;
    const body = readFileSync(new URL("./fixtures/push.json", import.meta.url), "utf8");
    expect((await deliver("push", body, signed(body, "wrong-secret"))).status).toBe(401);
    expect((await deliver("push", body)).status).toBe(401);
    expect((await deliver("push", `${body} `, signed(body))).status).toBe(401);
    expect(channelMessages().length).toBe(before);
    expect(
      log.lines().filter((l) => l.msg === "webhook rejected: authentication failed"),
    ).toHaveLength(3);
  });

  it("answers ping and ignored events without posting", async () => {
    const before = channelMessages().length;
    const ping = JSON.stringify({ zen: "Design for failure.", hook_id: 1 });
    expect(await (await deliver("ping", ping, signed(ping))).json()).toEqual({
      ok: true,
      pong: true,
    });
    const star = JSON.stringify({ action: "created" });
    expect(await (await deliver("star", star, signed(star))).json()).toEqual({
      ok: true,
      ignored: "star",
    });
    // (A body the receiver has not taken yet: a signed body is posted once, whatever its headers.)
    const unnamed = JSON.stringify({ action: "created", n: 2 });
    expect((await deliver("", unnamed, signed(unnamed))).status).toBe(400);
    expect(channelMessages().length).toBe(before);
  });
});

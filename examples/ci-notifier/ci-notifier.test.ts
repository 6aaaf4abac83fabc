// The CI notifier example as shipped: its config's webhook route, `bot send`, and the ci plugin.
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { loadConfigFile } from "topicbot";
import { createTestBot } from "topicbot/testing";
import { resolvePlugins } from "../../src/config/plugins.js";
import { runSend } from "../../src/cli/commands/send.js";

const file = fileURLToPath(new URL("./bot.config.yaml", import.meta.url));

describe("the CI notifier example", () => {
  it("takes builds from its webhook and from bot send, and lists the latest per branch", async () => {
    const config = await loadConfigFile(file, { CI_WEBHOOK_TOKEN: "test-token-123" });
    const t = await createTestBot({
      plugins: await resolvePlugins(config, file),
      config: { webhooks: config.webhooks, http: { port: 0 } },
    });
    try {
      await t.channel("ci");
      // A CI service POSTs JSON to the webhook route.
      const refused = await t.webhook("/hooks/ci", { status: "failed" });
      expect(refused.status).toBe(401);
      const posted = await t.webhook(
        "/hooks/ci",
        { status: "failed", branch: "main", url: "https://ci.example/1" },
        { headers: { "x-webhook-token": "test-token-123" } },
      );
      expect(posted.status).toBe(200);
      expect(await t.expectReply("Build failed: main (https://ci.example/1)")).toMatchObject({
        channel: "ci",
        topic: "builds",
      });

      // A CI step runs notify.sh, that is `bot send`, as its own account.
      const ci = await t.createUser({ handle: "ci", fullName: "CI Runner" });
      const lines: string[] = [];
      const out = { stdout: (l: string) => lines.push(l), stderr: (l: string) => lines.push(l) };
      const env = { ZULIP_SITE: t.sandbox.url, ZULIP_EMAIL: ci.email, ZULIP_API_KEY: ci.apiKey };
      for (const [status, branch, n] of [
        ["passed", "main", 2],
        ["passed", "feature-x", 3],
      ] as const) {
        const code = await runSend(
          {
            to: "ci",
            topic: "builds",
            message: `Build ${status}: ${branch} (https://ci.example/${n})`,
          },
          { out, env },
        );
        expect(code, lines.join("\n")).toBe(0);
      }
      await t.settle();
      await t.dialog([
        [
          "!builds",
          "- ✅ `feature-x`: passed ([log](https://ci.example/3))\n- ✅ `main`: passed ([log](https://ci.example/2))",
        ],
      ]);
    } finally {
      await t.close();
    }
  });
});

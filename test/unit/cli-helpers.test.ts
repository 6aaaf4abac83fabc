import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { plainStartOptions } from "../../src/cli/plain-start.js";
import { maskSecret } from "../../src/cli/commands/check.js";
import { packageName, topicbotSpec } from "../../src/cli/commands/init.js";
import { projectFiles } from "../../src/cli/templates.js";
import { loadConfig } from "../../src/config/index.js";

describe("maskSecret", () => {
  it("shows four characters and the length of a long key, nothing of a short one", () => {
    expect(maskSecret("abcdEFGHijklMNOPqrstUVWXyz012345")).toBe("[redacted] (32 characters)");
    expect(maskSecret("short-secret")).toBe("[redacted] (12 characters)");
  });
});

describe("bot init templates", () => {
  it("make npm package names from folder names", () => {
    expect(packageName("/tmp/Standup Bot!")).toBe("standup-bot");
    expect(packageName("/tmp/...")).toBe("my-bot");
  });

  it("ship a config that loads, pointing editors at the installed schema", () => {
    const files = projectFiles({ name: "x", topicbotVersion: "^0.1.0" });
    const config = loadConfig(files["bot.config.yaml"]!, {}, "bot.config.yaml");
    expect(config.plugins).toEqual(["ping", { "./plugins/hello": { greeting: "Hello" } }]);
    expect(config.storage).toEqual({ type: "file", path: "data/bot.json" });
    expect(JSON.parse(files["package.json"]!)).toMatchObject({
      dependencies: { topicbot: "^0.1.0" },
      scripts: { test: "vitest run" },
    });
  });
});

describe("bot init's topicbot dependency", () => {
  it("is the version range when topicbot is installed, and the checkout itself when run from a clone", () => {
    expect(
      topicbotSpec({ root: "/home/u/app/node_modules/topicbot", version: "0.1.0" }, "/home/u/app"),
    ).toBe("^0.1.0");
    expect(topicbotSpec({ root: "/work/topicbot", version: "0.1.0" }, "/work/my-bot")).toBe(
      "file:../topicbot",
    );
    expect(
      topicbotSpec({ root: "/work/topicbot", version: "0.1.0" }, "/work/topicbot/bots/x"),
    ).toBe("file:../..");
  });

  it("is the same tarball when the installed topicbot came from one (npm's hidden lockfile says file:), not a range the registry may not have", () => {
    const app = mkdtempSync(join(tmpdir(), "topicbot-init-"));
    try {
      const root = join(app, "node_modules", "topicbot");
      mkdirSync(root, { recursive: true });
      writeFileSync(
        join(app, "node_modules", ".package-lock.json"),
        JSON.stringify({
          packages: { "node_modules/topicbot": { resolved: "file:../topicbot-0.1.0.tgz" } },
        }),
      );
      expect(topicbotSpec({ root, version: "0.1.0" }, join(app, "my-bot"))).toBe(
        "file:../../topicbot-0.1.0.tgz",
      );
      writeFileSync(
        join(app, "node_modules", ".package-lock.json"),
        JSON.stringify({
          packages: {
            "node_modules/topicbot": { resolved: "https://registry.npmjs.org/topicbot/-/x.tgz" },
          },
        }),
      );
      expect(topicbotSpec({ root, version: "0.1.0" }, join(app, "my-bot"))).toBe("^0.1.0");
    } finally {
      rmSync(app, { recursive: true, force: true });
    }
  });
});

describe("plainStartOptions (bot start without commander)", () => {
  it("reads start with -c/--config/--cluster in both forms, the default config otherwise", () => {
    expect(plainStartOptions(["start"])).toEqual({ config: "bot.config.yaml" });
    expect(plainStartOptions(["start", "-c", "a.yaml"])).toEqual({ config: "a.yaml" });
    expect(plainStartOptions(["start", "--config=b.yaml", "--cluster", "redis://x"])).toEqual({
      config: "b.yaml",
      cluster: "redis://x",
    });
    expect(plainStartOptions(["start", "--cluster=redis://x", "--config", "c.yaml"])).toEqual({
      config: "c.yaml",
      cluster: "redis://x",
    });
  });

  it("leaves everything else to commander", () => {
    for (const argv of [
      [],
      ["dev"],
      ["start", "--help"],
      ["start", "-c"],
      ["start", "-c", "--cluster"],
      ["start", "--config="],
      ["start", "-ca.yaml"],
      ["start", "extra"],
      ["start", "--port", "1"],
    ])
      expect(plainStartOptions(argv), argv.join(" ")).toBeUndefined();
  });
});

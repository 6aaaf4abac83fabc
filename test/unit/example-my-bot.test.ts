import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { expect, it } from "vitest";
import { projectFiles } from "../../src/cli/templates.js";

const root = fileURLToPath(new URL("../../examples/my-bot/", import.meta.url));

it("examples/my-bot is exactly what `bot init` writes today", async () => {
  const pkg = JSON.parse(
    await readFile(new URL("../../package.json", import.meta.url), "utf8"),
  ) as {
    version: string;
  };
  const files = projectFiles({ name: "my-bot", topicbotVersion: `^${pkg.version}` });
  for (const [path, text] of Object.entries(files)) {
    expect(
      await readFile(`${root}${path}`, "utf8"),
      `${path} differs; run: bot init examples/my-bot --force`,
    ).toBe(text);
  }
});

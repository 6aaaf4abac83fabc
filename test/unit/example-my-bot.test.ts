import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { expect, it } from "vitest";
import { topicbotSpec } from "../../src/cli/commands/init.js";
import { projectFiles } from "../../src/cli/templates.js";

const root = fileURLToPath(new URL("../../examples/my-bot/", import.meta.url));
const checkout = fileURLToPath(new URL("../../", import.meta.url));

it("examples/my-bot is exactly what `bot init` writes today", async () => {
  const pkg = JSON.parse(
    await readFile(new URL("../../package.json", import.meta.url), "utf8"),
  ) as {
    version: string;
  };
  // From a clone, `bot init` depends on the clone (`file:../..` here), which installs without a
  // registry; a `^0.1.0` range would ask the registry for a package that is not published.
  const spec = topicbotSpec({ root: checkout, version: pkg.version }, root);
  expect(spec).toBe("file:../..");
  const files = projectFiles({ name: "my-bot", topicbotVersion: spec });
  for (const [path, text] of Object.entries(files)) {
    expect(
      await readFile(`${root}${path}`, "utf8"),
      `${path} differs; run: bot init examples/my-bot --force`,
    ).toBe(text);
  }
});

// The dev console in real Chromium: a zform button runs the bot's handler, a poll vote lands, Markdown and emoji render, the mobile view hides widgets.
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { launchChromium } from "../helpers/chromium.js";
import { startDevConsole, type DevConsole } from "../helpers/dev-console.js";

/** Every wait in the page is bounded; the machine is shared, so generously. */
const WAIT = 20_000;

describe("bot dev --web widgets in a real browser", () => {
  let dev: DevConsole | undefined;
  let browser: Browser | undefined;
  let page: Page;
  let shots: string;

  beforeAll(async () => {
    shots = await mkdtemp(join(tmpdir(), "topicbot-console-shots-"));
    browser = await launchChromium();
    dev = await startDevConsole();
    page = await browser.newPage({ viewport: { width: 1366, height: 900 } });
    await page.goto(dev.url, { timeout: WAIT });
  }, 90_000);

  beforeEach(({ onTestFailed }) =>
    onTestFailed(async () => {
      const notice = await page
        .getByRole("alert")
        .allTextContents()
        .catch(() => []);
      console.error(`bot dev printed:\n${dev?.printed()}\npage notices: ${notice.join(" | ")}`);
    }),
  );

  afterAll(async () => {
    await browser?.close();
    await dev?.stop();
    await rm(shots, { recursive: true, force: true });
  }, 30_000);

  const say = async (text: string) => {
    const box = page.getByLabel(/^Message to/);
    await box.fill(text);
    await box.press("Enter");
  };
  const message = (text: string | RegExp) =>
    page.getByRole("log").getByRole("article").filter({ hasText: text });

  it("says it watches plugin files", async () => {
    await page.locator(".reload").getByText("watching plugin files").waitFor({ timeout: WAIT });
  });

  it("clicks a zform button: the reply is sent as the speaker and the bot's handler answers", async () => {
    await say("!card");
    const card = page.getByRole("group", { name: "Choices: Pick a colour" }).last();
    await card.waitFor({ timeout: WAIT });
    // The web client shows the widget in place of the content.
    await expect(card.getByRole("button").allTextContents()).resolves.toEqual(["B", "G"]);
    await card.getByRole("button", { name: "G" }).click();
    await message(/^Mia Member.*!picked green/s)
      .last()
      .waitFor({ timeout: WAIT });
    const answer = message(/^Topic Bot.*you picked green/s).last();
    await answer.waitFor({ timeout: WAIT });
    await expect(answer.locator(".via").textContent()).resolves.toMatch(/^cards › command picked/);
  }, 90_000);

  it("votes in a poll, and the vote lands", async () => {
    await say("!lunch");
    const poll = page.getByRole("group", { name: "Poll: Lunch?" }).last();
    await poll.waitFor({ timeout: WAIT });
    await poll.getByRole("button", { name: "Vote for Pizza (0 votes)" }).click();
    const voted = poll.getByRole("button", { name: "Vote for Pizza (1 vote)" });
    await voted.waitFor({ timeout: WAIT });
    await expect(voted.getAttribute("aria-pressed")).resolves.toBe("true");
    await poll.getByText("(Mia Member)").waitFor({ timeout: WAIT });
  }, 90_000);

  it("renders Markdown, emoji and a local time; the screenshot's page holds them", async () => {
    await say("!fmt");
    const answer = message(/^Topic Bot.*Shipped/s).last();
    await answer.waitFor({ timeout: WAIT });
    await expect(answer.locator(".content strong").textContent()).resolves.toBe("Shipped");
    await expect(answer.locator(".content span.emoji").textContent()).resolves.toBe("🎉");
    await expect(answer.textContent()).resolves.not.toContain(":tada:");
    const time = answer.locator(".content time");
    await expect
      .poll(() => time.getAttribute("title"), { timeout: WAIT })
      .toBe("2024-05-01T10:00:00Z");
    // Shown in the browser's zone and words, not as written.
    await expect(time.textContent()).resolves.toMatch(/2024/);
    await expect(time.textContent()).resolves.not.toContain("T10:00:00Z");
    // A reaction shows as the emoji too.
    await answer.getByRole("button", { name: /React with :thumbs_up:/ }).click();
    await answer.getByText("👍 1").waitFor({ timeout: WAIT });

    const file = join(shots, "console.png");
    await page.screenshot({ path: file, fullPage: true, timeout: WAIT });
    const png = await readFile(file);
    expect(png.subarray(1, 4).toString()).toBe("PNG");
    // What the screenshot shows, read from the page as it was taken.
    const shown = await page.evaluate(() => {
      const doc = (
        globalThis as unknown as {
          document: {
            querySelectorAll(s: string): { length: number; textContent: string | null }[];
          };
        }
      ).document;
      return {
        strong: [...doc.querySelectorAll(".messages .content strong")].map((e) => e.textContent),
        emoji: [...doc.querySelectorAll(".messages .content span.emoji")].map((e) => e.textContent),
        widgets: doc.querySelectorAll(".messages .widget").length,
      };
    });
    expect(shown.strong).toContain("Shipped");
    expect(shown.emoji).toContain("🎉");
    expect(shown.widgets).toBeGreaterThanOrEqual(2);
  }, 90_000);

  it("shows only what mobile clients show in the mobile view: content, no widgets", async () => {
    await page.getByLabel("Mobile view").check();
    await expect.poll(() => page.locator(".messages .widget").count(), { timeout: WAIT }).toBe(0);
    await message(/Pick a colour: blue or green/)
      .last()
      .waitFor({ timeout: WAIT });
    await message(/\/poll Lunch\?/)
      .last()
      .waitFor({ timeout: WAIT });
    await page.getByLabel("Mobile view").uncheck();
    await page.getByRole("group", { name: "Poll: Lunch?" }).last().waitFor({ timeout: WAIT });
  }, 90_000);
});

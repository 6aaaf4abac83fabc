import { writeFile } from "node:fs/promises";
import { request } from "node:http";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { launchChromium } from "../helpers/chromium.js";
import { deployPlugin, startDevWeb, type DevWeb } from "../helpers/dev-web.js";

/** Every wait in the page is bounded; the machine is shared, so generously. */
const WAIT = 20_000;

describe("bot dev --web in a real browser", () => {
  let dev: DevWeb | undefined;
  let browser: Browser | undefined;
  let page: Page;

  beforeAll(async () => {
    browser = await launchChromium();
    dev = await startDevWeb();
    page = await browser.newPage({ viewport: { width: 1366, height: 768 } });
    await page.goto(dev.url, { timeout: WAIT });
  }, 60_000);

  // A failure shows what bot dev printed and what the page said.
  beforeEach(({ onTestFailed }) =>
    onTestFailed(async () => {
      const notice = await page
        .getByRole("alert")
        .allTextContents()
        .catch(() => []);
      console.error(`bot dev printed:\n${dev?.output()}\npage notices: ${notice.join(" | ")}`);
    }),
  );

  afterAll(async () => {
    await browser?.close();
    await dev?.stop();
  }, 30_000);

  const log = () => page.getByRole("log");
  const say = async (text: string) => {
    const box = page.getByLabel(/^Message to/);
    await box.fill(text);
    await box.press("Enter");
  };
  /** The message articles in the list whose text matches. */
  const message = (text: string | RegExp) => log().getByRole("article").filter({ hasText: text });

  it("answers only with the printed token and on a loopback Host", async () => {
    const url = new URL(dev!.url);
    const status = (path: string, headers: Record<string, string> = {}) =>
      new Promise<number | undefined>((resolve, reject) => {
        const req = request({ host: url.hostname, port: url.port, path, headers, timeout: WAIT });
        req.on("response", (res) => {
          res.resume();
          resolve(res.statusCode);
        });
        req.on("error", reject);
        req.end();
      });
    expect(await status("/api/state")).toBe(403);
    expect(await status("/api/state?token=wrong")).toBe(403);
    expect(await status(`/api/state${url.search}`)).toBe(200);
    // A page on another site that resolves its name to 127.0.0.1 (DNS rebinding) is refused.
    expect(await status(`/api/state${url.search}`, { host: `evil.example:${url.port}` })).toBe(421);
  });

  it("answers !ping with pong, showing the plugin, handler and time it took", async () => {
    await say("!ping");
    const pong = message(/^Topic Bot.*pong/s).last();
    await pong.waitFor({ timeout: WAIT });
    await expect(pong.locator(".via").textContent()).resolves.toMatch(
      /^ping › command ping · \d+ ms$/,
    );
    // A message not addressed to the bot says why nothing answered.
    await say("just chatting");
    await expect(
      message("just chatting").getByRole("note").textContent({ timeout: WAIT }),
    ).resolves.toMatch(/not addressed to the bot/);
  }, 60_000);

  it("uploads an image that shows in the message, and reacts", async () => {
    // A 1×1 PNG.
    const png = Buffer.from(
      "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==",
      "base64",
    );
    await page
      .getByLabel("Upload a file")
      .setInputFiles({ name: "dot.png", mimeType: "image/png", buffer: png });
    await expect
      .poll(() => page.getByLabel(/^Message to/).inputValue(), { timeout: WAIT })
      .toMatch(/\[dot\.png\]\(\/user_uploads\/.+\)/);
    await page.getByLabel(/^Message to/).press("Enter");
    const image = message(/Mia Member/)
      .last()
      .locator("img");
    await image.waitFor({ timeout: WAIT });
    await expect
      .poll(
        () => image.evaluate((img) => (img as unknown as { naturalWidth: number }).naturalWidth),
        { timeout: WAIT },
      )
      .toBe(1);
    await message(/Mia Member/)
      .last()
      .getByRole("button", { name: /React with :tada:/ })
      .click();
    await message(/Mia Member/)
      .last()
      .getByText("🎉 1")
      .waitFor({ timeout: WAIT });
  }, 60_000);

  it("explains a role refusal to the guest", async () => {
    await page.getByLabel("Speak as").selectOption("gus");
    await page.getByText("Gus Guest (gus)").first().waitFor({ state: "attached", timeout: WAIT });
    await say("!deploy");
    const note = message(/^Gus Guest.*!deploy/s)
      .last()
      .getByRole("note");
    await expect(note.textContent({ timeout: WAIT })).resolves.toMatch(
      /refused: !deploy is not for the role guest/,
    );
    await message(/Sorry, `?!deploy`? is only for/)
      .last()
      .waitFor({ timeout: WAIT });
    await page.getByLabel("Speak as").selectOption("mia");
  }, 60_000);

  it("moves the clock ahead: the reminder arrives and the cron job's next run shows", async () => {
    await say("!remind me in 2 hours to stretch");
    await message(/I'll remind you/)
      .last()
      .waitFor({ timeout: WAIT });
    await page.getByRole("tab", { name: "Schedule" }).click();
    await page
      .getByRole("tabpanel")
      .getByText(/Reminder: stretch/)
      .waitFor({ timeout: WAIT });
    await page
      .getByRole("tabpanel")
      .getByText(/hourly.*next run/)
      .waitFor({ timeout: WAIT });
    await page.getByRole("tab", { name: "Control" }).click();
    const hour = page.getByRole("button", { name: "Move the clock ahead 1 h" });
    await hour.click();
    await page.getByText("(+60 min)").waitFor({ timeout: WAIT });
    await hour.click();
    await page.getByText("(+120 min)").waitFor({ timeout: WAIT });
    await message(/Reminder: stretch/)
      .last()
      .waitFor({ timeout: WAIT });
  }, 60_000);

  it("recovers after dropped polls", async () => {
    await page.getByRole("button", { name: /Drop the bot's next 2 polls/ }).click();
    await page.getByRole("list", { name: "Active faults" }).waitFor({ timeout: WAIT });
    // The poll under way brings this message; the next two polls are dropped.
    const pongs = () => message(/^Topic Bot.*pong/s).count();
    const before = await pongs();
    await say("!ping");
    await expect.poll(pongs, { timeout: WAIT }).toBe(before + 1);
    await page
      .getByRole("list", { name: "Active faults" })
      .waitFor({ state: "detached", timeout: WAIT });
    // Both drops are spent: the bot polls again and answers.
    await say("!ping");
    await expect.poll(pongs, { timeout: WAIT }).toBe(before + 2);
  }, 60_000);

  it("reloads an edited plugin, and says where a broken one fails", async () => {
    await writeFile(dev!.pluginFile, deployPlugin("shipped"));
    const status = page.locator(".reload");
    await status.getByText(/reloaded ping, remind, deploy/).waitFor({ timeout: WAIT });
    await say("!deploy");
    const shipped = message(/^Topic Bot.*shipped #1/s).last();
    await shipped.waitFor({ timeout: WAIT });
    await expect(shipped.locator(".via").textContent()).resolves.toMatch(/deploy › command deploy/);

    await writeFile(dev!.pluginFile, `${deployPlugin("broken")}\nexport const = ;\n`);
    await status.getByText(/reload failed at deploy\.ts:\d+/).waitFor({ timeout: WAIT });
  }, 60_000);
});

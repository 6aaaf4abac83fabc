// `npm run docs:screenshot`: regenerates docs/dev-console.png from a real `bot dev --web` session in headless chromium.
import { fileURLToPath } from "node:url";
import { launchChromium } from "../test/helpers/chromium.js";
import { startDevWeb } from "../test/helpers/dev-web.js";

const target = fileURLToPath(new URL("../docs/dev-console.png", import.meta.url));
const WAIT = 20_000;

const dev = await startDevWeb();
const browser = await launchChromium();
try {
  const page = await browser.newPage({ viewport: { width: 1366, height: 768 } });
  await page.goto(dev.url, { timeout: WAIT });
  const say = async (text: string, answer: RegExp) => {
    const box = page.getByLabel(/^Message to/);
    await box.fill(text);
    await box.press("Enter");
    await page.getByRole("log").getByText(answer).last().waitFor({ timeout: WAIT });
  };
  await say("!ping", /^pong$/);
  await say("lunch at noon?", /not addressed to the bot/);
  await say("!deploy", /deployed #1/);
  await page.getByLabel("Speak as").selectOption("gus");
  await say("!deploy", /is not for the role guest/);
  await page.getByLabel("Speak as").selectOption("mia");
  await say("!remind me in 2 hours to stretch", /I'll remind you/);
  await page.getByRole("tab", { name: "Events" }).click();
  await page.getByRole("tabpanel").locator("details").first().locator("summary").click();
  await page.getByLabel(/^Message to/).fill("!help");
  await page.screenshot({ path: target });
  console.log(`wrote ${target}`);
} finally {
  await browser.close();
  await dev.stop();
}

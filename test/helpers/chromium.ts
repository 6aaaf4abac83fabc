// Debian's chromium driven by playwright-core (no browser download): launched headless, or a failure saying what to install.
import { existsSync } from "node:fs";
import { chromium, type Browser } from "playwright-core";

/** Where Debian's `chromium` package puts the browser; `CHROMIUM_PATH` overrides it. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

/**
 * Launches the system chromium headless (playwright gives it a fresh temporary profile); throws saying to
 * `apt-get install chromium` when it is not there (a browser test never skips quietly).
 */
export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM_PATH))
    throw new Error(
      `no chromium at ${CHROMIUM_PATH}: install it with \`apt-get update && apt-get install -y chromium\` (or set CHROMIUM_PATH)`,
    );
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    timeout: 30_000,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
}

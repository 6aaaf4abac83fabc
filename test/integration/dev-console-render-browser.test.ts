// In Debian's Chromium: every classic attack, made safe for the dev console and set as a message's HTML (as web/app.tsx does), runs nothing and reads back stable.
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sanitizeMessageHtml } from "../../src/dev/web/render.js";
import { launchChromium } from "../helpers/chromium.js";
import { HTML_ATTACKS } from "../helpers/html-attacks.js";

/** The few DOM parts the page-side checks use (the project's types have no DOM library). */
interface PageElement {
  tagName: string;
  namespaceURI: string | null;
  innerHTML: string;
  attributes: Iterable<{ name: string }>;
  hasAttribute(name: string): boolean;
  getAttribute(name: string): string | null;
  querySelectorAll(selector: string): Iterable<PageElement>;
}
interface PageGlobals {
  document: {
    baseURI: string;
    getElementById(id: string): PageElement | null;
    createElement(tag: string): PageElement;
  };
  __xss?: number;
  __control?: number;
}

/** What the browser made of one message's HTML. */
interface Parsed {
  /** Elements with an event-handler attribute. */
  handlers: string[];
  /** Elements outside the HTML namespace (SVG, MathML). */
  foreign: string[];
  /** href/src values that lead anywhere but http(s) or mailto. */
  urls: string[];
  /** Images from anywhere but the chat server (or an inline raster image). */
  images: string[];
  /** The HTML read back, parsed and read back again: differs when parsing mutates the markup (mXSS). */
  reparsed: string | null;
}

describe("the console's message HTML in a browser", () => {
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    browser = await launchChromium();
    page = await browser.newPage();
    // The page's base stands for the chat server, so relative links resolve as in the console.
    await page.setContent('<!doctype html><base href="http://chat.test/"><div id="m"></div>');
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
  });

  /** Sets `html` as the message's content and reads what the browser built from it. */
  const show = (html: string): Promise<Parsed> =>
    page.evaluate((html) => {
      const { document } = globalThis as unknown as PageGlobals;
      const box = document.getElementById("m")!;
      box.innerHTML = html;
      const all = [...box.querySelectorAll("*")];
      const urls = all.flatMap((e) =>
        ["href", "src"]
          .filter((name) => e.hasAttribute(name))
          .map((name) => new URL(e.getAttribute(name)!, document.baseURI))
          .filter(
            (url) =>
              !(
                ((url.protocol === "http:" || url.protocol === "https:") && url.host !== "") ||
                url.protocol === "mailto:" ||
                /^data:image\/(png|gif|jpeg|webp);base64,/.test(url.href)
              ),
          )
          .map((url) => url.href),
      );
      const images = all
        .filter((e) => e.tagName === "IMG" && e.hasAttribute("src"))
        .map((e) => new URL(e.getAttribute("src")!, document.baseURI))
        .filter((url) => url.host !== "chat.test" && url.protocol !== "data:")
        .map((url) => url.href);
      const again = document.createElement("div");
      again.innerHTML = box.innerHTML;
      return {
        handlers: all.flatMap((e) =>
          [...e.attributes].filter((a) => /^on/i.test(a.name)).map((a) => `${e.tagName} ${a.name}`),
        ),
        foreign: all
          .filter((e) => e.namespaceURI !== "http://www.w3.org/1999/xhtml")
          .map((e) => e.tagName),
        urls,
        images,
        reparsed: again.innerHTML === box.innerHTML ? null : again.innerHTML,
      };
    }, html);

  it("runs no script or handler for any attack, alone or glued to the others", async () => {
    const attacks = HTML_ATTACKS.map(([, attack]) => attack);
    const messages = [
      ...attacks,
      attacks.join(""),
      attacks.join("<p>"),
      `<table><tr><td>${attacks.join("<td>")}`,
    ];
    for (const attack of messages) {
      const parsed = await show(sanitizeMessageHtml(attack));
      expect(parsed, attack).toEqual({
        handlers: [],
        foreign: [],
        urls: [],
        images: [],
        reparsed: null,
      });
    }
    // The check can see a script run: the same attack unsanitized sets the marker (bounded wait).
    await show("<img src=x onerror=window.__control=1>");
    await page.waitForFunction(
      () => (globalThis as unknown as PageGlobals).__control === 1,
      undefined,
      {
        timeout: 20_000,
      },
    );
    // By now the images of the sanitized attacks (src=x among them, had one survived) have failed too.
    expect(
      await page.evaluate(() => (globalThis as unknown as PageGlobals).__xss ?? null),
    ).toBeNull();
  }, 120_000);

  it("sees handlers, foreign content, script URLs and foreign images when they are there (the check is not blind)", async () => {
    const parsed = await show(
      '<svg><a href="javascript:x()"><text>t</text></a></svg><b onclick="x()">b</b><img src="https://tracker.test/p.gif">',
    );
    expect(parsed.handlers).toEqual(["B onclick"]);
    expect(parsed.foreign).toEqual(["svg", "a", "text"]);
    expect(parsed.urls).toEqual(["javascript:x()"]);
    expect(parsed.images).toEqual(["https://tracker.test/p.gif"]);
  }, 60_000);
});

// The recorder's batch sanitizing (Sanitizer.json over JSON text) and its form decoding, beside the value walk they replace.
import { describe, expect, it } from "vitest";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Sanitizer, hashText, type SanitizeOptions } from "../../src/record/sanitize.js";
import { fitsOutsideStrings, insideEscape } from "../../src/record/sanitize-json.js";
import { Recorder } from "../../src/record/recorder.js";
import { parseCassette } from "../../src/record/cassette.js";
import { formEncode } from "../../src/client/encode.js";
import type { HttpRequest, HttpResponse, RequestSender } from "../../src/client/transport.js";

/** What `json` makes of a value, read back, beside what `value` makes of it (each a fresh sanitizer). */
function both(value: unknown, options: SanitizeOptions = {}): { json: unknown; walk: unknown } {
  const text = new Sanitizer(options).json(JSON.stringify(value));
  return { json: JSON.parse(text), walk: new Sanitizer(options).value(value) };
}

describe("Sanitizer.json", () => {
  it("does what the value walk does: emails, names, mentions, secrets, the site, keys with @", () => {
    const body = {
      messages: [
        {
          sender_email: "Mia@Example.com",
          sender_full_name: "Mia Member",
          content: "hi @**Adam Admin**, mail mia@example.com, key s3cr3t-api-key-1234",
        },
        {
          sender_email: "adam@example.com",
          sender_full_name: "Adam Admin",
          content: "Mia Member?",
        },
        { sender_full_name: "Max", content: "@**Max** and @_**Max|12** said max" },
      ],
      presence: { "mia@example.com": { status: "active" } },
      realm_url: "https://chat.corp.example:8443",
      avatar_url: "https://chat.corp.example:8443/user_avatars/1.png",
      api_key: "abcdef",
      password: "",
      list: [1, true, null, -2.5e-7, "x"],
    };
    const options = { secrets: ["s3cr3t-api-key-1234"], site: "https://chat.corp.example:8443/" };
    const { json, walk } = both(body, options);
    expect(json).toEqual(walk);
    expect(JSON.stringify(json)).not.toMatch(/example\.com|Mia|Adam|Max\b|s3cr3t|abcdef|corp/);
  });

  it("hashes content as the walk does, names replaced before hashing", () => {
    const body = { sender_full_name: "Zoe Zed", content: "Zoe Zed wrote\nthis", subject: "t" };
    const { json, walk } = both(body, { hashContent: true });
    expect(json).toEqual(walk);
    expect((json as { content: string }).content).toBe(hashText("User 1 wrote\nthis"));
    const unsanitized = both(body, { enabled: false, hashContent: true });
    expect(unsanitized.json).toEqual(unsanitized.walk);
    expect((unsanitized.json as { sender_full_name: string }).sender_full_name).toBe("Zoe Zed");
  });

  it("never starts a replacement inside an escape: the text keeps saying what it said", () => {
    const s = new Sanitizer({ secrets: ["nsecret-key"] });
    const content = [
      "line\nmia@example.com",
      "ctl\u0001bob@example.com",
      "tab\tNora Nils",
      'quote "Nora Nils" and back\\slash',
      "\\nsecret-key stays (it is a backslash and a newline-less secret)",
    ].join("|");
    const text = s.json(JSON.stringify({ sender_full_name: "Nora Nils", content }));
    const out = JSON.parse(text) as { content: string; sender_full_name: string };
    expect(out.sender_full_name).toBe("User 1");
    expect(out.content).toBe(
      [
        "line\nuser-1@example.invalid",
        "ctl\u0001user-2@example.invalid",
        "tab\tUser 1",
        'quote "User 1" and back\\slash',
        "\\[secret] stays (it is a backslash and a newline-less secret)",
      ].join("|"),
    );
    // The same content through the walk.
    expect(out.content).toBe(
      (
        new Sanitizer({ secrets: ["nsecret-key"] }).value({
          sender_full_name: "Nora Nils",
          content,
        }) as { content: string }
      ).content,
    );
  });

  it("keeps the JSON whole whatever people are called, and keys as they are", () => {
    const people = ["null", "true", "1234", "1e+21", "full", "content", 'Q "the" Q\\', "Bo"];
    const body = {
      users: people.map((full_name, i) => ({ full_name, user_id: i, is_active: true })),
      content: `null true 1234 full content Q "the" Q\\ Bo`,
      zero: null,
      n: 1234,
      big: 1e21,
      full: "content",
    };
    const text = new Sanitizer().json(JSON.stringify(body));
    const out = JSON.parse(text) as typeof body;
    expect(out.users.map((u) => u.full_name)).toEqual(people.map((_, i) => `User ${i + 1}`));
    expect(Object.keys(out)).toEqual(["users", "content", "zero", "n", "big", "full"]);
    expect(Object.keys(out.users[0]!)).toEqual(["full_name", "user_id", "is_active"]);
    expect([out.zero, out.n, out.big, out.users[0]!.is_active]).toEqual([null, 1234, 1e21, true]);
    // Long names that cannot be taken for a number or a literal are replaced inside text too.
    expect(out.content).toBe(`null true 1234 User 5 User 6 User 7 Bo`);
    expect(out.full).toBe("User 6");
  });

  it("never replaces a name in what says what a thing is: type, method, endpoint, kept headers", () => {
    const line = {
      type: "exchange",
      method: "POST",
      endpoint: "POST /messages",
      headers: { "retry-after": "1200" },
      body: {
        events: [{ type: "message", message: { sender_full_name: "message", content: "message" } }],
        users: [{ full_name: "exchange" }, { full_name: "POST /messages" }, { full_name: "1200" }],
      },
    };
    const out = JSON.parse(new Sanitizer().json(JSON.stringify(line))) as typeof line;
    expect([out.type, out.method, out.endpoint, out.headers]).toEqual([
      "exchange",
      "POST",
      "POST /messages",
      { "retry-after": "1200" },
    ]);
    expect(out.body.events[0]!.type).toBe("message");
    expect(out.body.events[0]!.message).toEqual({ sender_full_name: "User 1", content: "User 1" });
    expect(out.body.users.map((u) => u.full_name)).toEqual(["User 2", "User 3", "User 4"]);
  });

  it("learns every name of the text before replacing, so a name is replaced before the line that tells it", () => {
    const s = new Sanitizer();
    const lines = [
      JSON.stringify({ content: "ask Zoe Zed about it" }),
      JSON.stringify({ sender_full_name: "Zoe Zed" }),
    ].join("\n");
    const [first, second] = s.json(lines).split("\n");
    expect(JSON.parse(first!)).toEqual({ content: "ask User 1 about it" });
    expect(JSON.parse(second!)).toEqual({ sender_full_name: "User 1" });
    // A later batch: the same alias; and sanitizing twice changes nothing.
    const again = s.json(JSON.stringify({ content: "Zoe Zed again" }));
    expect(JSON.parse(again)).toEqual({ content: "User 1 again" });
    expect(s.json(again)).toBe(again);
  });

  it("learns a name from a mention of it, not from a wildcard, so the name is replaced in the text around it too", () => {
    // A message fetched at start: its sender is the bot, but it mentions someone not seen yet.
    const fetched = {
      messages: [
        {
          sender_full_name: "Topic Bot",
          content: "@**Olivia Owner** asked; Olivia Owner waits. @**all** @_**topic**",
        },
        { sender_full_name: "Topic Bot", content: "silent @_**Zed Zeta|12** for Zed Zeta" },
      ],
    };
    const expected = {
      messages: [
        {
          sender_full_name: "User 1",
          content: "@**User 2** asked; User 2 waits. @**all** @_**topic**",
        },
        { sender_full_name: "User 1", content: "silent @_**User 3|12** for User 3" },
      ],
    };
    const { json, walk } = both(fetched);
    expect(json).toEqual(expected);
    expect(walk).toEqual(expected);
  });

  it("learns the realm's own URL from an answer when the bot reaches the server by another address", () => {
    // The bot is given an internal address; the registration tells the realm's public URL, which
    // names the organization (and is in every avatar and upload link).
    const register = {
      result: "success",
      realm_url: "https://chat.acme-corp.example",
      realm_uri: "https://chat.acme-corp.example",
      realm_icon_url: "https://chat.acme-corp.example/user_avatars/2/realm/icon.png",
    };
    const later = {
      avatar_url: "https://chat.acme-corp.example/avatar/7",
      note: "chat.acme-corp.example is up",
    };
    const expected = {
      register: {
        result: "success",
        realm_url: "https://server.invalid",
        realm_uri: "https://server.invalid",
        realm_icon_url: "https://server.invalid/user_avatars/2/realm/icon.png",
      },
      later: { avatar_url: "https://server.invalid/avatar/7", note: "server.invalid is up" },
    };
    const options = { site: "http://zulip.internal:9991" };
    const s = new Sanitizer(options);
    expect(JSON.parse(s.json(JSON.stringify(register)))).toEqual(expected.register);
    // A later batch, and the value walk, replace it too; the site is still replaced.
    expect(JSON.parse(s.json(JSON.stringify(later)))).toEqual(expected.later);
    expect(s.json(JSON.stringify({ link: "http://zulip.internal:9991/x" }))).toBe(
      '{"link":"https://server.invalid/x"}',
    );
    const walk = new Sanitizer(options);
    expect(walk.value(register)).toEqual(expected.register);
    expect(walk.value(later)).toEqual(expected.later);
    // Already sanitized: nothing to learn, nothing changes.
    const again = JSON.stringify(expected.register);
    expect(new Sanitizer(options).json(again)).toBe(again);
  });
  it("tells escapes and names that fit outside strings apart", () => {
    expect(insideEscape(String.raw`a\nb`, 2)).toBe(1);
    expect(insideEscape(String.raw`a\\nb`, 3)).toBe(0);
    expect(insideEscape(String.raw`\u0001x`, 1)).toBe(5);
    expect(insideEscape(String.raw`\u0001x`, 3)).toBe(3);
    expect(insideEscape(String.raw`\u0001x`, 6)).toBe(0);
    for (const name of ["null", "alse", "1234", "1e+21", "-0.5", "true,false"])
      expect(fitsOutsideStrings(name), name).toBe(true);
    for (const name of ["Ella", "anna", "sean", "Mia Member", "fern"])
      expect(fitsOutsideStrings(name), name).toBe(false);
  });
});

describe("Recorder batches", () => {
  it("writes every exchange in order, sanitized as one text, across many batches", async () => {
    const dir = await mkdtemp(join(tmpdir(), "topicbot-record-batch-"));
    try {
      const path = join(dir, "c.jsonl");
      const recorder = new Recorder({
        path,
        site: "https://chat.example.org",
        secrets: ["k3y-123456"],
      });
      let id = 0;
      const inner: RequestSender = {
        send: async (req) =>
          ({
            status: 200,
            headers: { "x-ratelimit-remaining": "199", "retry-after": ["1"] },
            body: {
              result: "success",
              id: ++id,
              echo: req.fields,
              ...(id === 600 ? { sender_full_name: "Late Learner" } : {}),
            },
          }) as HttpResponse,
        close: async () => {},
      };
      const sender = recorder.wrap(inner);
      const sends: Promise<HttpResponse>[] = [];
      for (let n = 1; n <= 1000; n++)
        sends.push(
          sender.send({
            method: "POST",
            path: "/messages",
            endpoint: "POST /messages",
            fields: `content=${formEncode(`#${n} from mia@example.com with k3y-123456 and Late Learner`)}`,
          } as HttpRequest),
        );
      await Promise.all(sends);
      await sender.close();
      const text = await readFile(path, "utf8");
      expect(text).not.toMatch(/mia@|k3y|example\.org/);
      const cassette = parseCassette(text);
      expect(cassette.exchanges.map((x) => x.seq)).toEqual(
        Array.from({ length: 1000 }, (_, i) => i + 1),
      );
      const first = cassette.exchanges[0]!;
      expect(first.fields.content).toBe(
        "#1 from user-1@example.invalid with [secret] and Late Learner",
      );
      expect(first.headers).toEqual({ "retry-after": "1", "x-ratelimit-remaining": "199" });
      expect(first.status).toBe(200);
      // The name was learned in exchange 600: replaced in its batch (before and after it), and after.
      const at600 = cassette.exchanges[599]!;
      expect(at600.fields.content).toBe(
        "#600 from user-1@example.invalid with [secret] and User 1",
      );
      expect(cassette.exchanges[999]!.fields.content).toContain("and User 1");
      expect(cassette.exchanges[598]!.fields.content).toContain("and User 1");
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

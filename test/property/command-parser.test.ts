// Property tests of the command parser: any text tokenizes and binds without crashing; quoting round-trips.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { arg, UsageError, type ApiClient, type ArgsShape } from "topicbot";
import { compileSpec, resolveInvocation, type Resolved } from "../../src/commands/command.js";
import { bind, optionWord, tokenize } from "../../src/commands/parse.js";
import { Directory } from "../../src/context/directory.js";
import { ApiError } from "../../src/client/errors.js";

const RUNS = { numRuns: 300 };

/** Pieces that make command lines interesting: quotes, escapes, markup, options, odd spaces. */
const fragment = fc.oneof(
  fc.constantFrom(
    " ",
    "  ",
    "\t",
    "\n",
    "\u00a0",
    '"',
    "'",
    "\u201c",
    "\u201d",
    "\u2018",
    "\u2019",
    "\\",
    "--",
    "--silent",
    "--at=",
    "--repeat",
    "-",
    "=",
    "@**",
    "@_**",
    "#**",
    "**",
    ">",
    "|",
    "@**Mia Member**",
    "#**general>release plan**",
    "me",
    "tomorrow",
    "9:00",
    "in",
    "10",
    "minutes",
    "2h30m",
    "friday at 5pm",
    "2025-13-45 25:61",
    "1e308",
    "NaN",
    "-0",
    "😀",
    "\u0000",
  ),
  fc.string({ maxLength: 6 }),
  fc.string({ unit: "grapheme", maxLength: 4 }),
);
const commandLine = fc.array(fragment, { maxLength: 24 }).map((parts) => parts.join(""));
const anyText = fc.oneof(commandLine, fc.string({ unit: "binary", maxLength: 60 }));

describe("tokenize on any text", () => {
  it("never throws, and its tokens are ordered, disjoint, separated by whitespace only", () => {
    fc.assert(
      fc.property(anyText, (text) => {
        const tokens = tokenize(text);
        let last = 0;
        for (const t of tokens) {
          expect(t.start).toBeGreaterThanOrEqual(last);
          expect(t.end).toBeGreaterThan(t.start);
          expect(t.end).toBeLessThanOrEqual(text.length);
          expect(text.slice(last, t.start).trim()).toBe("");
          if (t.quoted) expect(t.value.length).toBeLessThanOrEqual(t.end - t.start - 2);
          else expect(t.value).toBe(text.slice(t.start, t.end));
          last = t.end;
        }
        expect(text.slice(last).trim()).toBe("");
      }),
      RUNS,
    );
  });

  it("gives back any list of strings written in double quotes with \\ escapes", () => {
    const separator = fc.constantFrom(" ", "  ", "\t", "\n", " \n ");
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.string({ unit: "binary", maxLength: 12 }), separator), {
          maxLength: 8,
        }),
        (words) => {
          const text = words
            .map(([w, sep]) => `"${w.replace(/[\\"]/g, (c) => `\\${c}`)}"${sep}`)
            .join("");
          const tokens = tokenize(text);
          expect(tokens.map((t) => t.value)).toEqual(words.map(([w]) => w));
          expect(tokens.every((t) => t.quoted)).toBe(true);
        },
      ),
      RUNS,
    );
  });

  it("splits plain words (no spaces, no leading quote) exactly on whitespace", () => {
    const word = fc
      .string({ minLength: 1, maxLength: 10 })
      .filter((w) => !/\s/.test(w) && !/^["'\u201c\u2018]/.test(w));
    fc.assert(
      fc.property(fc.array(word, { maxLength: 10 }), (words) => {
        const tokens = tokenize(words.join(" "));
        expect(tokens.map((t) => t.value)).toEqual(words);
        expect(tokens.some((t) => t.quoted)).toBe(false);
      }),
      RUNS,
    );
  });
});

/** A random spec: required positionals, then optional ones, maybe a rest; flags and valued options. */
const identifier = fc.stringMatching(/^[a-z][a-zA-Z]{0,7}$/);
const specArb = fc
  .record({
    required: fc.integer({ min: 0, max: 3 }),
    optional: fc.integer({ min: 0, max: 2 }),
    rest: fc.boolean(),
    names: fc.uniqueArray(identifier, {
      minLength: 10,
      maxLength: 10,
      selector: (n) => optionWord(n).replace(/-/g, "").toLowerCase(),
    }),
    options: fc.array(fc.constantFrom("flag", "value", "required"), { maxLength: 4 }),
  })
  .map(({ required, optional, rest, names, options }) => {
    const args: ArgsShape = {};
    let i = 0;
    for (let r = 0; r < required; r++) args[names[i++]!] = arg.string();
    for (let o = 0; o < optional; o++) args[names[i++]!] = arg.string().optional();
    if (rest) args[names[i++]!] = required + optional > 0 ? arg.rest().optional() : arg.rest();
    const opts: ArgsShape = {};
    for (const kind of options) {
      const name = names[i++]!;
      opts[name] =
        kind === "flag" ? arg.flag() : kind === "value" ? arg.string().optional() : arg.string();
    }
    return compileSpec("prop", { args, options: opts });
  });

describe("bind on any text and any spec", () => {
  it("either binds every required parameter or throws a UsageError, nothing else", () => {
    fc.assert(
      fc.property(specArb, anyText, (spec, text) => {
        let bound;
        try {
          bound = bind(text, spec);
        } catch (error) {
          expect(error).toBeInstanceOf(UsageError);
          expect((error as UsageError).message.length).toBeGreaterThan(0);
          return;
        }
        for (const [name, a] of spec.positionals)
          if (a.required) expect(bound.positionals.has(name)).toBe(true);
        for (const [name, a] of spec.options) {
          if (a.required && !a.flag) expect(bound.options.has(name)).toBe(true);
          const value = bound.options.get(name);
          if (value !== undefined)
            expect(a.flag ? value === true : typeof value).toBe(a.flag ? true : "string");
        }
        const known = new Set(spec.options.map(([n]) => n));
        for (const name of bound.options.keys()) expect(known.has(name)).toBe(true);
      }),
      RUNS,
    );
  });

  it("gives back values written in quotes, options first, whatever the values contain", () => {
    const value = fc.string({ unit: "binary", maxLength: 10 });
    fc.assert(
      fc.property(
        specArb,
        fc.array(value, { minLength: 12, maxLength: 12 }),
        fc.array(fc.boolean(), { minLength: 4, maxLength: 4 }),
        (spec, values, present) => {
          const quote = (v: string) => `"${v.replace(/[\\"]/g, (c) => `\\${c}`)}"`;
          const words: string[] = [];
          const expectedOptions = new Map<string, string | true>();
          spec.options.forEach(([name, a], i) => {
            if (!a.required && !present[i]) return;
            if (a.flag) {
              words.push(`--${optionWord(name)}`);
              expectedOptions.set(name, true);
            } else {
              words.push(`--${optionWord(name)}`, quote(values[i]!));
              expectedOptions.set(name, values[i]!);
            }
          });
          const expectedPositionals = new Map<string, string>();
          spec.positionals.forEach(([name], i) => {
            const v = values[4 + i]!;
            words.push(quote(v));
            expectedPositionals.set(name, v);
          });
          const bound = bind(words.join(" "), spec);
          expect(bound.positionals).toEqual(expectedPositionals);
          expect(bound.options).toEqual(expectedOptions);
        },
      ),
      RUNS,
    );
  });
});

describe("typed arguments on any text", () => {
  const users = [
    { user_id: 1, email: "mia@example.com", full_name: "Mia Member", role: 400, timezone: "" },
    {
      user_id: 2,
      email: "max@example.com",
      full_name: "Max Mod",
      role: 300,
      timezone: "Asia/Tokyo",
    },
    { user_id: 3, email: "dup1@example.com", full_name: "Sam", role: 400, timezone: "" },
    { user_id: 4, email: "dup2@example.com", full_name: "Sam", role: 400, timezone: "" },
  ].map((u) => ({ ...u, is_bot: false, is_active: true }));
  const found = <T>(user: T | undefined): T => {
    if (user) return user;
    throw new ApiError({
      code: "BAD_REQUEST",
      status: 400,
      msg: "No such user",
      extra: {},
      endpoint: "GET /users/{user_id}",
    });
  };
  const api = {
    users: {
      get: async ({ user_id }: { user_id: number }) => ({
        user: found(users.find((u) => u.user_id === user_id)),
      }),
      getByEmail: async ({ email }: { email: string }) => ({
        user: found(users.find((u) => u.email === email.toLowerCase())),
      }),
    },
    // The directory's names: GET /users read for names only.
    call: async () => ({ result: "success", msg: "", members: users }),
    channels: {
      list: async () => ({
        result: "success",
        msg: "",
        streams: [
          { stream_id: 1, name: "general" },
          { stream_id: 2, name: "dev ops" },
        ],
      }),
    },
  } as unknown as ApiClient;
  const env = {
    directory: new Directory(api),
    senderId: 1,
    now: Date.UTC(2025, 2, 1, 12),
    timeZone: async () => "Europe/Berlin",
  };
  const specs = (
    [
      { who: arg.user(), when: arg.time(), what: arg.rest() },
      { n: arg.number(), pick: arg.choice("a", "b"), d: arg.duration().optional() },
      { c: arg.channel(), t: arg.topic().optional() },
      { when: arg.time().optional(), rest: arg.rest().optional() },
    ] as ArgsShape[]
  ).map((args) =>
    compileSpec("typed", {
      args,
      options: { at: arg.time().optional(), for: arg.duration().optional(), f: arg.flag() },
    }),
  );

  it("resolve to values or a UsageError naming the parameter, never another error", async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...specs), commandLine, async (spec, text) => {
        try {
          const { args, options } = await resolveInvocation(spec, text, env);
          for (const [name, a] of spec.positionals)
            if (a.required) expect(args[name]).toBeDefined();
          expect(typeof options.f).toBe("boolean");
          for (const v of [args.when, options.at])
            if (v !== undefined) expect(Number.isNaN((v as Date).getTime())).toBe(false);
          for (const v of [args.d, options.for])
            if (v !== undefined) expect(Number.isFinite(v)).toBe(true);
        } catch (error) {
          if (!(error instanceof UsageError)) throw error;
          expect(error.message).not.toBe("");
        }
      }),
      RUNS,
    );
  });
});

describe("resolveInvocation on lines of plain words (the one tokenizer)", () => {
  /** Lines of mostly plain words, with the spellings that trip tokenizers: options, `--`, quotes, markup. */
  const plainish = fc
    .array(
      fc.oneof(
        fc.constantFrom(" ", "  ", "\t", "--", "--f", "--flag", "--note", "--note=x", "-x", "--5"),
        // Options spelt otherwise than declared: upper case, the name itself, a prefix of one.
        fc.constantFrom(
          "--NOTE",
          "--Note",
          "--dry-run",
          "--dryrun",
          "--dryRun",
          "--dry",
          "--notes",
        ),
        fc.constantFrom("a", "b", "12", "-3", "1e3", "x y", "don't", '"q"', "@x", "#y", "é"),
        fc.stringMatching(/^[a-z0-9]{1,5}$/),
      ),
      { maxLength: 12 },
    )
    .map((parts) => parts.join(" "));
  const specs = (
    [
      { args: { a: arg.number(), b: arg.number() }, options: { note: arg.string().optional() } },
      { args: { word: arg.string(), more: arg.rest().optional() }, options: { flag: arg.flag() } },
      { args: { a: arg.string().optional() }, options: { f: arg.flag(), note: arg.string() } },
      { args: { pick: arg.choice("a", "b"), n: arg.integer().optional() } },
      {
        args: { a: arg.string().optional() },
        options: { dryRun: arg.flag(), note: arg.string().optional() },
      },
    ] as { args: ArgsShape; options?: ArgsShape }[]
  ).map((spec) => compileSpec("plain", spec));
  const env = { directory: {} as Directory, senderId: 1, now: 0, timeZone: async () => "UTC" };
  const outcome = (spec: (typeof specs)[number], text: string) => {
    try {
      return { value: resolveInvocation(spec, text, env) };
    } catch (error) {
      return { error: (error as Error).message };
    }
  };

  it("gives values or a usage error, never anything else, and the same for the same line", () => {
    fc.assert(
      fc.property(fc.constantFrom(...specs.keys()), plainish, (i, text) => {
        const spec = specs[i]!;
        const first = outcome(spec, text);
        expect(outcome(spec, text)).toEqual(first);
        if ("error" in first) expect(first.error).toMatch(/^(`--[a-z-]+`|<[a-z]+>)?.+/);
        else
          for (const [name, a] of spec.positionals)
            if (a.required) expect((first.value as Resolved).args[name]).toBeDefined();
      }),
      { numRuns: 2000 },
    );
  });

  it("reads back the words a line was written from, the option anywhere among them", () => {
    const word = fc.stringMatching(/^[a-z][a-z0-9]{0,5}$/);
    fc.assert(
      fc.property(
        fc.integer({ min: -999, max: 999 }),
        fc.integer({ min: -999, max: 999 }),
        fc.option(word, { nil: undefined }),
        fc.integer({ min: 0, max: 2 }),
        fc.constantFrom("--note", "--NOTE", "--Note"),
        (a, b, note, at, spelt) => {
          const words = [String(a), String(b)];
          if (note !== undefined) words.splice(at, 0, spelt, note);
          expect(outcome(specs[0]!, words.join(" "))).toEqual({
            value: { args: { a, b }, options: { note } },
          });
        },
      ),
      { numRuns: 1000 },
    );
  });
});

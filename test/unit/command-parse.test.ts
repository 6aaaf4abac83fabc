import { describe, expect, expectTypeOf, it } from "vitest";
import {
  arg,
  tokenize,
  UsageError,
  z,
  type ArgsShape,
  type ChannelRef,
  type ChatUser,
  type CommandContext,
  type CommandSpec,
  type NoArgs,
  type TopicRef,
} from "topicbot";
import { bind } from "../../src/commands/parse.js";
import { compileSpec, usageLine } from "../../src/commands/command.js";
import { editDistance, suggest } from "../../src/commands/help.js";

const spec = (args: ArgsShape, options: ArgsShape = {}) => compileSpec("test", { args, options });

describe("tokenize", () => {
  it("splits on spaces and keeps quoted strings and chat markup whole", () => {
    expect(
      tokenize(`@**Mia Member** "two words" 'single q' #**general>release plan** x`).map(
        (t) => t.value,
      ),
    ).toEqual(["@**Mia Member**", "two words", "single q", "#**general>release plan**", "x"]);
  });

  it("resolves escapes inside quotes and takes an unterminated quote literally", () => {
    expect(tokenize(String.raw`"say \"hi\"" don't`).map((t) => t.value)).toEqual([
      'say "hi"',
      "don't",
    ]);
    expect(tokenize(`"open ended`).map((t) => t.value)).toEqual([`"open`, "ended"]);
  });

  it("records where each word stood", () => {
    expect(tokenize(`a  "b c"`)).toEqual([
      { value: "a", start: 0, end: 1, quoted: false },
      { value: "b c", start: 3, end: 8, quoted: true },
    ]);
  });
});

describe("bind", () => {
  const remind = spec(
    { who: arg.user(), when: arg.time(), what: arg.rest() },
    { silent: arg.flag(), repeat: arg.duration().optional() },
  );

  it("gives multi-word values (times) as many words as they can take", () => {
    const bound = bind("@**Mia Member** tomorrow at 9:00 buy milk", remind);
    expect(Object.fromEntries(bound.positionals)).toEqual({
      who: "@**Mia Member**",
      when: "tomorrow at 9:00",
      what: "buy milk",
    });
  });

  it("reads --flags and --options (with value or =value) anywhere before the rest", () => {
    const bound = bind(
      "--silent me --repeat 1h 30m in 10 minutes call mom --not-an-option",
      remind,
    );
    expect(Object.fromEntries(bound.options)).toEqual({ silent: true, repeat: "1h 30m" });
    expect(bound.positionals.get("when")).toBe("in 10 minutes");
    expect(bound.positionals.get("what")).toBe("call mom --not-an-option");
    expect(bind("me now x --repeat=2h", remind).positionals.get("what")).toBe("x --repeat=2h");
    expect(bind("--repeat=2h me now x", remind).options.get("repeat")).toBe("2h");
  });

  it("takes a quoted value as one word and unquotes a lone quoted rest", () => {
    const bound = bind(`me "tomorrow 9:00" "hello there"`, remind);
    expect(bound.positionals.get("when")).toBe("tomorrow 9:00");
    expect(bound.positionals.get("what")).toBe("hello there");
  });

  it("names what is wrong", () => {
    const problem = (text: string) => {
      try {
        bind(text, remind);
      } catch (error) {
        expect(error).toBeInstanceOf(UsageError);
        return (error as UsageError).message;
      }
      return "no error";
    };
    expect(problem("me")).toBe("missing <when>");
    expect(problem("me now")).toBe("missing <what>");
    expect(problem("--loud me now x")).toBe("unknown option `--loud`");
    expect(problem("me now x --silent=yes".replace(" x", "") + " x")).toBe(
      "`--silent` is a flag and takes no value",
    );
    expect(problem("me now --repeat")).toBe("`--repeat` needs a value");
    expect(() => bind("a b", spec({ one: z.string() }))).toThrow("unexpected `b`");
  });

  it("lets -- end the options", () => {
    const bound = bind("-- --silent", spec({ text: z.string() }, { silent: arg.flag() }));
    expect(bound.positionals.get("text")).toBe("--silent");
    expect(bound.options.size).toBe(0);
  });
});

describe("compileSpec and usageLine", () => {
  it("builds the usage line from the spec", () => {
    const compiled = compileSpec("remind", {
      args: { who: arg.user(), when: arg.time(), what: arg.rest() },
      options: { silent: arg.flag(), dryRun: arg.flag(), every: arg.duration().optional() },
    });
    expect(usageLine("remind", compiled)).toBe(
      "remind <who:user> <when:time> <what...> [--silent] [--dry-run] [--every <duration>]",
    );
    expect(
      usageLine(
        "roll",
        compileSpec("roll", {
          args: {
            sides: z.coerce.number().int().default(6),
            mode: z.enum(["fair", "loaded"]).optional(),
          },
        }),
      ),
    ).toBe("roll [sides:number] [mode:fair|loaded]");
  });

  it("refuses declarations that cannot work, naming the command", () => {
    expect(() => compileSpec("x", { args: { a: arg.rest(), b: arg.user() } })).toThrow(
      'command "x": rest argument <a> must be the last argument',
    );
    expect(() => compileSpec("x", { args: { a: arg.user().optional(), b: arg.user() } })).toThrow(
      "required argument <b> cannot follow optional <a>",
    );
    expect(() => compileSpec("x", { args: { f: arg.flag() } })).toThrow("belongs in options");
  });
});

describe("did you mean", () => {
  it("counts a transposition as one edit", () => {
    expect(editDistance("pnig", "ping")).toBe(1);
    expect(editDistance("remind", "remidn")).toBe(1);
    expect(editDistance("kitten", "sitting")).toBe(3);
  });

  it("suggests close names and prefixes, best first, nothing for far ones", () => {
    const names = ["ping", "pong", "remind", "reminders", "help"];
    expect(suggest("pnig", names)).toEqual(["ping", "pong"]);
    expect(suggest("rem", names)).toEqual(["remind", "reminders"]);
    expect(suggest("deploy", names)).toEqual([]);
  });
});

describe("types of ctx.command (checked by tsc)", () => {
  /** What a handler's ctx is for this spec, exactly as `bot.command` infers it. */
  const contextFor = <A extends ArgsShape = NoArgs, O extends ArgsShape = NoArgs>(
    _spec: CommandSpec<A, O>,
  ): CommandContext<A, O> =>
    ({
      command: { name: "x", args: {}, options: {}, text: "", raw: "x" },
      reply: async () => ({ id: 1, ids: [1] }),
    }) as unknown as CommandContext<A, O>;

  it("infers args and options from the spec", () => {
    const ctx = contextFor({
      args: {
        who: arg.user(),
        where: arg.channel(),
        thread: arg.topic(),
        when: arg.time(),
        count: z.coerce.number(),
        mode: z.enum(["a", "b"]).optional(),
        level: arg.choice("low", "high").default("low"),
        what: arg.rest(),
      },
      options: { silent: arg.flag(), every: arg.duration().optional() },
    });
    expectTypeOf(ctx.command.args.who).toEqualTypeOf<ChatUser>();
    expectTypeOf(ctx.command.args.where).toEqualTypeOf<ChannelRef>();
    expectTypeOf(ctx.command.args.thread).toEqualTypeOf<TopicRef>();
    expectTypeOf(ctx.command.args.when).toEqualTypeOf<Date>();
    expectTypeOf(ctx.command.args.count).toEqualTypeOf<number>();
    expectTypeOf(ctx.command.args.mode).toEqualTypeOf<"a" | "b" | undefined>();
    expectTypeOf(ctx.command.args.level).toEqualTypeOf<"low" | "high">();
    expectTypeOf(ctx.command.args.what).toEqualTypeOf<string>();
    expectTypeOf(ctx.command.options.silent).toEqualTypeOf<boolean>();
    expectTypeOf(ctx.command.options.every).toEqualTypeOf<number | undefined>();
    expectTypeOf(ctx.command.text).toEqualTypeOf<string>();
    // A misspelt argument or option does not compile (it used to be `unknown`).
    // @ts-expect-error misspelt argument
    void ctx.command.args.nope;
    // @ts-expect-error misspelt option
    void ctx.command.options.silnet;
    // The rest of the context is still a message context.
    expectTypeOf(ctx.reply).parameter(0).toEqualTypeOf<string>();
  });

  it("gives a command without args an empty args object and free text", () => {
    const ctx = contextFor({ description: "no args" });
    expectTypeOf(ctx.command.args).toEqualTypeOf<NoArgs>();
    expectTypeOf(ctx.command.text).toBeString();
    // @ts-expect-error a command without args has none to read
    void ctx.command.args.nope;
  });
});

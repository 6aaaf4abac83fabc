// "Save this conversation as a test": a conversation the console shows, written as a harness test (t.dialog steps).

/** One message of the conversation, as the server keeps it (raw Markdown). */
export interface SavedMessage {
  id: number;
  senderId: number;
  content: string;
  /** Seconds, as the server stamps messages. */
  timestamp: number;
}

/** A plugin the test loads: the import specifier (relative to the test file, or a package) and its settings. */
export interface SavedPlugin {
  specifier: string;
  settings?: unknown;
}

export interface ConversationTestInput {
  /** `#general > dev`, or a direct message with the bot (and `others`, by handle). */
  where: { type: "channel"; channel: string; topic: string } | { type: "direct"; others: string[] };
  /** Oldest first. */
  messages: readonly SavedMessage[];
  bot: { userId: number; fullName: string };
  /** The harness handle of a human sender; undefined for anyone the harness cannot speak as (skipped). */
  handleOf: (userId: number) => string | undefined;
  plugins: readonly SavedPlugin[];
  /** Runtime settings that change answers (`prefix`, `respondTo`, `timeZone`, `errorReply`). */
  config: Record<string, unknown>;
  /** For the header comment. */
  savedAt: Date;
}

/** A gap between messages longer than this is replayed by moving the test clock. */
const GAP_SECONDS = 30;

type Step = { say: string; answers: string[] };
type Item =
  | { kind: "dialog"; as: string; steps: Step[] }
  | { kind: "advance"; ms: number }
  | { kind: "later"; content: string };

/** The conversation as test items: dialogs by speaker, clock moves for long gaps, messages the bot sent later. */
function itemsOf(input: ConversationTestInput): Item[] {
  const items: Item[] = [];
  const humans = input.messages.filter(
    (m) => m.senderId !== input.bot.userId && input.handleOf(m.senderId) !== undefined,
  );
  const first = humans[0];
  if (!first) return items;
  let clock = first.timestamp;
  let step: { step: Step; at: number } | undefined;
  const advanceTo = (at: number): void => {
    if (at - clock <= 0) return;
    items.push({ kind: "advance", ms: (at - clock) * 1000 });
    clock = at;
  };
  for (const m of input.messages) {
    if (m.id < first.id) continue;
    if (m.senderId === input.bot.userId) {
      if (step && m.timestamp - step.at <= GAP_SECONDS) step.step.answers.push(m.content);
      else {
        // Sent long after anything said (a reminder, a scheduled post): the clock brings it.
        advanceTo(m.timestamp);
        items.push({ kind: "later", content: m.content });
        step = undefined;
      }
      continue;
    }
    const as = input.handleOf(m.senderId);
    if (as === undefined) continue;
    const gap = m.timestamp - clock > GAP_SECONDS;
    if (gap) advanceTo(m.timestamp);
    const next: Step = { say: m.content, answers: [] };
    const last = items.at(-1);
    if (last?.kind === "dialog" && last.as === as && step && !gap) last.steps.push(next);
    else items.push({ kind: "dialog", as, steps: [next] });
    step = { step: next, at: m.timestamp };
  }
  return items;
}

const literal = (value: unknown): string => JSON.stringify(value);

function expectation(answers: readonly string[]): string {
  if (answers.length === 0) return "null";
  if (answers.length === 1) return literal(answers[0]);
  return `[${answers.map(literal).join(", ")}]`;
}

/**
 * Writes the test: the conversation's plugins in a harness started at the time of its first
 * message, each human line as a dialog step expecting exactly what the bot answered then (or
 * silence), long pauses as clock moves, and what the bot sent on its own later as awaited replies.
 *
 * @example
 * const { source, steps } = conversationTest({ where, messages, bot, handleOf, plugins, config, savedAt });
 */
export function conversationTest(input: ConversationTestInput): { source: string; steps: number } {
  const items = itemsOf(input);
  const steps = items.reduce((n, i) => n + (i.kind === "dialog" ? i.steps.length : 0), 0);
  const where =
    input.where.type === "channel"
      ? `#${input.where.channel} > ${input.where.topic}`
      : `a direct message with ${input.bot.fullName}${input.where.others.length ? ` and ${input.where.others.join(", ")}` : ""}`;
  const place =
    input.where.type === "channel"
      ? `channel: ${literal(input.where.channel)}, topic: ${literal(input.where.topic)}`
      : `dm: ${input.where.others.length ? `{ to: ${literal(input.where.others)} }` : "true"}`;
  const start = input.messages.find((m) => m.senderId !== input.bot.userId)?.timestamp;
  const lines: string[] = [
    `// Saved from the bot dev console at ${input.savedAt.toISOString()}: ${where}, ${steps} ${steps === 1 ? "step" : "steps"}.`,
    `// Each line is said again as it was, and the bot must answer exactly as it did then.`,
    `import { afterAll, beforeAll, describe, it } from "vitest";`,
    `import { createTestBot, type TestBot } from "topicbot/testing";`,
    ...input.plugins.map((p, i) => `import * as plugin${i} from ${literal(p.specifier)};`),
    ``,
    `/** The plugin a module exports (its default export, or \`plugin\`). */`,
    `// eslint-disable-next-line @typescript-eslint/no-explicit-any`,
    `const pluginOf = (m: any) => (m.default?.setup ? m.default : (m.default?.default ?? m.plugin));`,
    ``,
    `describe(${literal(`the conversation in ${where}, saved from bot dev`)}, () => {`,
    `  let t: TestBot;`,
    `  beforeAll(async () => {`,
    `    t = await createTestBot({`,
    `      plugins: [${input.plugins
      .map((p, i) =>
        p.settings === undefined
          ? `pluginOf(plugin${i})`
          : `{ plugin: pluginOf(plugin${i}), settings: ${literal(p.settings)} }`,
      )
      .join(", ")}],`,
    `      config: ${literal(input.config)},`,
    `      botName: ${literal(input.bot.fullName)},`,
    ...(start === undefined
      ? []
      : [`      now: ${literal(new Date(start * 1000).toISOString())},`]),
    `    });`,
    `  });`,
    `  afterAll(async () => {`,
    `    await t?.close();`,
    `  });`,
    ``,
    `  it("answers as it did in the console", async () => {`,
  ];
  for (const item of items) {
    if (item.kind === "advance") lines.push(`    await t.clock.advance(${item.ms});`);
    else if (item.kind === "later")
      lines.push(`    await t.expectReply(${literal(item.content)}, { timeoutMs: 10_000 });`);
    else {
      lines.push(`    await t.dialog(`, `      [`);
      for (const s of item.steps)
        lines.push(`        [${literal(s.say)}, ${expectation(s.answers)}],`);
      lines.push(
        `      ],`,
        `      { ${place}, as: ${literal(item.as)}, timeoutMs: 10_000 },`,
        `    );`,
      );
    }
  }
  if (items.length === 0) lines.push(`    // Nobody said anything here yet.`);
  lines.push(`  });`, `});`, ``);
  return { source: lines.join("\n"), steps };
}

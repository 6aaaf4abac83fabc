// Saving the conversation the console shows as a test file in the bot's project (the test itself is written by save-test.ts).
import { mkdir, writeFile } from "node:fs/promises";
import { dirname, join, relative, sep } from "node:path";
import type { Bot } from "../../bot/bot.js";
import type { BotConfig } from "../../config/schema.js";
import { configSecrets } from "../../config/secrets.js";
import type { LoadedPlugin } from "../plugins.js";
import type { DevWorld } from "../world.js";
import { RequestError } from "./request-error.js";
import { conversationTest, type ConversationTestInput } from "./save-test.js";

/** The bot's project: its config file (tests go into `test/` beside it) and the config read from it. */
export interface SaveTestProject {
  configFile: string;
  config: BotConfig;
}

/** The handles the harness seeds; anyone else is replayed as `mia`'s words would not be theirs, so they are skipped. */
const HARNESS_HANDLES = new Set(["olivia", "adam", "max", "mia", "gus"]);

/** `value` with every string that is one of `secrets` replaced (settings may hold API keys). */
function redacted(value: unknown, secrets: ReadonlySet<string>): unknown {
  if (typeof value === "string") return secrets.has(value) ? "<redacted by bot dev>" : value;
  if (Array.isArray(value)) return value.map((v) => redacted(v, secrets));
  if (value && typeof value === "object")
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, redacted(v, secrets)]));
  return value;
}

/** An import specifier for `file` from `dir`: `./x.ts`, `../plugins/ping/index.ts`. */
function specifierFrom(dir: string, file: string): string {
  const path = relative(dir, file).split(sep).join("/");
  return path.startsWith(".") ? path : `./${path}`;
}

const slug = (text: string): string =>
  text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 40) || "conversation";

/**
 * Writes the conversation of `body.place` (the narrow the page shows: a channel topic, or a
 * direct message with the bot) as `test/<name>.test.ts` beside the config; resolves with the
 * file (relative to the working directory) and its number of dialog steps.
 */
export async function saveConversationTest(
  world: DevWorld,
  bot: Bot,
  plugins: readonly LoadedPlugin[],
  project: SaveTestProject,
  body: Record<string, unknown>,
): Promise<{ file: string; steps: number }> {
  const place = body.place as
    | { type: "channel"; channel?: unknown; topic?: unknown }
    | { type: "direct"; userId?: unknown }
    | undefined;
  let where: ConversationTestInput["where"];
  let narrow: unknown[];
  if (
    place?.type === "channel" &&
    typeof place.channel === "string" &&
    typeof place.topic === "string"
  ) {
    where = { type: "channel", channel: place.channel, topic: place.topic };
    narrow = [
      { operator: "channel", operand: place.channel },
      { operator: "topic", operand: place.topic },
    ];
  } else if (place?.type === "direct" && place.userId === bot.me.userId) {
    where = { type: "direct", others: [] };
    narrow = [{ operator: "dm", operand: [bot.me.userId] }];
  } else
    throw new RequestError(
      400,
      "`place` must be a channel topic or the direct message with the bot (a test needs the bot in the conversation)",
    );
  const { messages } = await world.client().messages.list({
    anchor: "newest",
    num_before: 1000,
    num_after: 0,
    narrow: narrow as never,
    apply_markdown: false,
  });
  const people = new Map(world.speakers().map((p) => [p.userId, p.handle]));
  const handleOf = (id: number): string | undefined => {
    if (world.remote) return id === world.speaker().userId ? "mia" : undefined;
    const handle = people.get(id);
    return handle && HARNESS_HANDLES.has(handle) ? handle : undefined;
  };
  const testDir = join(dirname(project.configFile), "test");
  const secrets = new Set(configSecrets(project.config));
  const { config } = project;
  const refs = config.plugins.map((p) => (typeof p === "string" ? p : Object.keys(p)[0]!));
  const { source, steps } = conversationTest({
    where,
    messages: messages.map((m) => ({
      id: m.id,
      senderId: m.sender_id,
      content: m.content,
      timestamp: m.timestamp,
    })),
    bot: { userId: bot.me.userId, fullName: bot.me.fullName },
    handleOf,
    plugins: plugins.map((p, i) => ({
      specifier: p.file ? specifierFrom(testDir, p.file) : refs[i]!,
      settings: p.settings === undefined ? undefined : redacted(p.settings, secrets),
    })),
    config: Object.fromEntries(
      Object.entries({
        prefix: config.prefix,
        respondTo: config.respondTo,
        timeZone: config.timeZone,
        errorReply: config.errorReply,
      }).filter(([, v]) => v !== undefined),
    ),
    savedAt: new Date(),
  });
  const base =
    typeof body.name === "string" && body.name.trim()
      ? slug(body.name)
      : `console-${slug(where.type === "channel" ? `${where.channel} ${where.topic}` : "dm")}`;
  await mkdir(testDir, { recursive: true });
  for (let n = 1; n < 100; n++) {
    const file = join(testDir, `${base}${n === 1 ? "" : `-${n}`}.test.ts`);
    try {
      await writeFile(file, source, { flag: "wx" });
      return { file: relative(process.cwd(), file) || file, steps };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
  }
  throw new RequestError(409, `test/${base}-*.test.ts: 99 files by that name already exist`);
}

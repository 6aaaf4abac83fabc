// The files `bot init` writes: a small bot project with a config, one plugin, its test and a README.

export interface TemplateOptions {
  /** npm package name of the new project. */
  name: string;
  /** Version range of topicbot to depend on. */
  topicbotVersion: string;
}

const packageJson = ({ name, topicbotVersion }: TemplateOptions): string =>
  `${JSON.stringify(
    {
      name,
      version: "0.1.0",
      private: true,
      type: "module",
      engines: { node: ">=20" },
      scripts: {
        start: "bot start",
        check: "bot check",
        test: "vitest run",
        typecheck: "tsc --noEmit",
      },
      dependencies: { topicbot: topicbotVersion },
      devDependencies: { "@types/node": "^20.19.0", typescript: "~5.9.0", vitest: "^4.1.0" },
    },
    null,
    2,
  )}\n`;

const tsconfig = `${JSON.stringify(
  {
    compilerOptions: {
      target: "ES2022",
      module: "NodeNext",
      moduleResolution: "NodeNext",
      types: ["node"],
      strict: true,
      noEmit: true,
      skipLibCheck: true,
      verbatimModuleSyntax: true,
      allowJs: true,
    },
    include: ["plugins"],
  },
  null,
  2,
)}\n`;

const config = `# yaml-language-server: $schema=./node_modules/topicbot/bot.config.schema.json
# Every key is explained in topicbot's docs/config.md. With no \`server\` (and no ZULIP_SITE,
# ZULIP_EMAIL, ZULIP_API_KEY in the environment), \`npm start\` runs the embedded sandbox.
#
# server:
#   site: https://chat.example.com
#   email: my-bot@chat.example.com
#   apiKey: \${ZULIP_API_KEY}

prefix: "!"
channels: [general]
storage: { type: file, path: data/bot.json }
plugins:
  - ping
  - ./plugins/hello:
      greeting: Hello
`;

const plugin = `// hello: greets whoever says !hello, with the greeting from bot.config.yaml.
import { definePlugin, z } from "topicbot";

export default definePlugin({
  name: "hello",
  description: "Greets people.",
  config: z.object({ greeting: z.string().default("Hello") }),
  setup(bot, config) {
    bot.command("hello", { description: "Say hello", examples: ["!hello"] }, (ctx) =>
      ctx.reply(\`\${config.greeting}, \${ctx.sender.fullName}!\`),
    );
  },
});
`;

const pluginTest = `// The hello plugin, tested against topicbot's embedded server: speak as a user, read the reply.
import { afterEach, expect, it } from "vitest";
import { createTestBot, type TestBot } from "topicbot/testing";
import hello from "./index.js";

let t: TestBot | undefined;
afterEach(async () => {
  await t?.close();
});

it("greets the sender with the configured greeting", async () => {
  t = await createTestBot({ plugins: [{ plugin: hello, settings: { greeting: "Bonjour" } }] });
  await t.send("!hello", { as: "mia" });
  expect((await t.reply()).content).toBe("Bonjour, Mia Member!");
});

it("says Hello by default", async () => {
  t = await createTestBot({ plugins: [hello] });
  await t.dm("hello", { as: "adam" });
  expect((await t.reply()).content).toBe("Hello, Adam Admin!");
});
`;

const pluginReadme = `# hello

Answers \`!hello\` with a greeting and the sender's name.

| Setting | Default | Meaning |
| --- | --- | --- |
| \`greeting\` | \`Hello\` | The word the bot greets with. |
`;

const readme = ({ name }: TemplateOptions): string => `# ${name}

A chat bot built with topicbot (its guides are in \`node_modules/topicbot/docs/\`, starting with
\`getting-started.md\`).

\`\`\`sh
npm install
npm test            # the plugins' tests, against topicbot's embedded server
npm start           # runs the bot; with no server configured, against the embedded sandbox
npx bot dev         # chat with the bot in the terminal; plugins reload when you save
npx bot check       # validates bot.config.yaml, connects, shows what the bot will listen to
\`\`\`

To connect to a real server, create a bot in its settings, then either fill in
\`server\` in \`bot.config.yaml\` or set \`ZULIP_SITE\`, \`ZULIP_EMAIL\` and
\`ZULIP_API_KEY\`. Then \`npx bot dev --me ~/.zuliprc\` chats with it there as you
(your own account's zuliprc), and \`npx bot dev --sandbox\` keeps to the embedded
sandbox. Plugins live in \`plugins/\`, one folder each.
`;

const gitignore = "node_modules/\ndata/\n";

/** Every file of a new project, by path relative to its folder. */
export function projectFiles(options: TemplateOptions): Record<string, string> {
  return {
    "package.json": packageJson(options),
    "tsconfig.json": tsconfig,
    "bot.config.yaml": config,
    "plugins/hello/index.ts": plugin,
    "plugins/hello/hello.test.ts": pluginTest,
    "plugins/hello/README.md": pluginReadme,
    "README.md": readme(options),
    ".gitignore": gitignore,
  };
}

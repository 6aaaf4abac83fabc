import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { botConfig, configJsonSchema, loadConfig } from "../../src/config/index.js";
import {
  configJsonSchemaText,
  configReferenceTable,
  GENERATED_BEGIN,
  GENERATED_END,
  withReferenceTable,
} from "../../src/config/reference.js";

const root = (path: string): string =>
  readFileSync(fileURLToPath(new URL(`../../${path}`, import.meta.url)), "utf8");
const STALE = "is stale: run `npm run docs:config` and commit the result";

describe("generated config artefacts stay in step with the zod schema", () => {
  it(`bot.config.schema.json ${STALE.replace("is stale: ", "(else ")})`, () => {
    expect(root("bot.config.schema.json"), `bot.config.schema.json ${STALE}`).toBe(
      configJsonSchemaText(),
    );
  });

  it("docs/config.md's key reference is current", () => {
    const doc = root("docs/config.md");
    expect(doc).toContain(GENERATED_BEGIN);
    expect(doc).toContain(GENERATED_END);
    expect(doc, `docs/config.md ${STALE}`).toBe(withReferenceTable(doc));
  });

  it("the table lists every top-level key of the schema", () => {
    const table = configReferenceTable();
    for (const key of Object.keys(botConfig.shape)) expect(table).toContain(`| \`${key}\` |`);
  });

  it("the JSON Schema is draft-07, closed, and says server needs zuliprc or all three settings", () => {
    const schema = configJsonSchema() as {
      $schema: string;
      additionalProperties: boolean;
      properties: Record<string, { anyOf?: unknown[] }>;
    };
    expect(schema.$schema).toBe("http://json-schema.org/draft-07/schema#");
    expect(schema.additionalProperties).toBe(false);
    expect(schema.properties.server!.anyOf).toEqual([
      { required: ["zuliprc"] },
      { required: ["site", "email", "apiKey"] },
    ]);
  });

  it("the shipped bot.config.yaml points editors at the schema and loads", () => {
    const text = root("bot.config.yaml");
    expect(text.split("\n")[0]).toBe("# yaml-language-server: $schema=./bot.config.schema.json");
    expect(() => loadConfig(text, {})).not.toThrow();
  });
});

describe("docs/config.md snippets", () => {
  const doc = root("docs/config.md");
  const snippets = [...doc.matchAll(/```yaml\n([\s\S]*?)```/g)].map((m) => m[1]!);

  it("has snippets", () => {
    expect(snippets.length).toBeGreaterThan(8);
  });

  it.each(snippets.map((s, i) => [i, s] as const))("snippet %i loads", (_, snippet) => {
    const env = {
      ZULIP_SITE: "https://chat.example.com",
      ZULIP_EMAIL: "bot@chat.example.com",
      ZULIP_API_KEY: "docsKEY0123456789",
      BOT_OWNER: "Olivia",
    };
    const readFile = () => "[api]\nemail=bot@chat.example.com\nkey=k\nsite=chat.example.com\n";
    expect(() => loadConfig(snippet, env, "docs/config.md", { readFile })).not.toThrow();
  });
});

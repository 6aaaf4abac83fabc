// `npm run docs:config`: regenerates the key table in docs/config.md and bot.config.schema.json from the zod schema.
import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { configJsonSchemaText, withReferenceTable } from "../src/config/reference.js";

const root = (path: string): string => fileURLToPath(new URL(`../${path}`, import.meta.url));

const docs = root("docs/config.md");
writeFileSync(docs, withReferenceTable(readFileSync(docs, "utf8")));
writeFileSync(root("bot.config.schema.json"), configJsonSchemaText());
console.log("wrote docs/config.md (key reference) and bot.config.schema.json");

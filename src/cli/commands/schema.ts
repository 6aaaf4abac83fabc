// `bot schema`: print the JSON Schema of bot.config.yaml, for editors and other tools.
import { configJsonSchemaText } from "../../config/reference.js";
import type { Output } from "../output.js";

export function runSchema(out: Output): number {
  out.stdout(configJsonSchemaText().trimEnd());
  return 0;
}

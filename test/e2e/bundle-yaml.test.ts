// yaml inlined in the published bundle as its ES-module build (scripts/bundle-plugins.mjs `yamlAsModules`): config loading reads the same as with the installed yaml.
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath, pathToFileURL } from "node:url";
import { expect, it } from "vitest";
import { loadConfig } from "../../src/config/index.js";

const checkout = fileURLToPath(new URL("../../", import.meta.url));
/** The "topicbot" entry as published (package.json `exports`). */
const entry = pathToFileURL(`${checkout}dist/bundle/index.js`).href;

it("the bundle holds yaml's ES-module build only, not its CommonJS dist", () => {
  const meta = JSON.parse(readFileSync(`${checkout}dist/bundle-meta.json`, "utf8")) as {
    inputs: Record<string, unknown>;
  };
  const yamlFiles = Object.keys(meta.inputs).filter((f) => f.startsWith("node_modules/yaml/"));
  expect(yamlFiles.length).toBeGreaterThan(10);
  expect(yamlFiles.filter((f) => !f.startsWith("node_modules/yaml/browser/"))).toEqual([]);
});

/** Config texts: valid ones, and YAML errors at many positions and of many kinds. */
const TEXTS = [
  "server: { site: https://chat.example.com, email: bot@example.com, apiKey: abcdefghijklmnopqrstuvwxyz012345 }\nprefix: '?'\nchannels: [general, standups]\nplugins:\n  - ping\n",
  'base: &b { level: debug, format: json }\nlogging: *b\nprefix: "!"\n',
  'prefix: "!"\nplugins: [ping\nchannels: general\n',
  "prefix: '!\nchannels: general\n",
  "prefix: !\nprefix: ?\n",
  "logging: { level: debug\n",
  "channels:\n\t- general\n",
  "a: b: c\n",
  "- one\n- two\n",
  "---\nprefix: x\n---\nprefix: y\n",
  "prefix: [a, b\n\n\nchannels: x\n",
  "prefx: '!'\n",
  "concurrency: many\nrateLimit: { commands: -1 }\n",
  "prefix: '!'\n  indented: wrong\n",
  "? complex\n: key\n",
  "x: &a [*a]\n",
  'prefix: "\\q"\n',
  "%YAML 9.9\n---\nprefix: x\n",
  "",
  "# only a comment\n",
];

/** What loading `text` gives: the config, or the error's message. */
function outcome(load: (text: string) => unknown, text: string): string {
  try {
    return JSON.stringify({ ok: load(text) });
  } catch (error) {
    return JSON.stringify({ error: String((error as Error).message) });
  }
}

it("loadConfig from the bundle gives what the source (installed yaml) gives, error positions included", () => {
  const env = { ZULIP_API_KEY: "KEYfromTheEnvironment0123456789a" };
  const script = `
    const { loadConfig } = await import(${JSON.stringify(entry)});
    const texts = JSON.parse(process.argv[1]);
    const env = ${JSON.stringify(env)};
    const outcome = ${outcome.toString()};
    console.log(JSON.stringify(texts.map((t) => outcome((x) => loadConfig(x, env), t))));
  `;
  const run = spawnSync(
    process.execPath,
    ["--input-type=module", "-e", script, JSON.stringify(TEXTS)],
    { cwd: checkout, encoding: "utf8", timeout: 60_000 },
  );
  expect(run.stderr).toBe("");
  const bundled = JSON.parse(run.stdout) as string[];
  const source = TEXTS.map((t) => outcome((x) => loadConfig(x, env), t));
  expect(source.filter((o) => o.startsWith('{"error"')).length).toBeGreaterThan(10);
  expect(bundled).toEqual(source);
});

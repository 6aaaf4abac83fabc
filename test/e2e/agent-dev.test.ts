// `bot dev` runs the agent example on the AI SDK mock model, and `--mock-model` swaps the mock in for any agent's model.
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { bin, cleanEnv, watch } from "../helpers/process.js";

const root = fileURLToPath(new URL("../../", import.meta.url));

/** Starts `bot dev --web` on `config`; resolves with a client for the console's API. */
async function devConsole(config: string, extra: string[], children: ChildProcess[]) {
  const child = spawn(
    process.execPath,
    [bin, "dev", "--web", "--no-watch", "-c", config, ...extra],
    {
      cwd: root,
      env: { ...cleanEnv(), NODE_OPTIONS: "", FORCE_COLOR: "0" },
      stdio: ["pipe", "pipe", "pipe"],
    },
  );
  children.push(child);
  const out = watch(child.stdout!);
  const err = watch(child.stderr!);
  const [url] = await out
    .waitFor(/http:\/\/127\.0\.0\.1:\d+\/\?token=[\w-]+/, 30_000)
    .catch((e: Error) => {
      throw new Error(`${e.message}\nstderr:\n${err.text}`);
    });
  const { origin, search } = new URL(url);
  const token = new URLSearchParams(search).get("token")!;
  const api = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${origin}${path}`, {
      method,
      headers: { "x-console-token": token, "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(10_000),
    });
    return (await res.json()) as Record<string, unknown>;
  };
  return { api, output: () => `${out.text}\n${err.text}` };
}

type Shown = { html: string; senderName: string };

/** Mentions the bot in #general > agent and waits (bounded) for an answer containing `end`. */
async function ask(
  api: Awaited<ReturnType<typeof devConsole>>["api"],
  text: string,
  end: string,
  output: () => string,
) {
  await api("POST", "/api/send", {
    place: { type: "channel", channel: "general", topic: "agent" },
    text: `@**Topic Bot** ${text}`,
  });
  let answer: Shown | undefined;
  for (let i = 0; i < 150 && !answer?.html.includes(end); i++) {
    const { messages } = (await api("GET", "/api/messages?channel=general&topic=agent")) as {
      messages: Shown[];
    };
    answer = messages.filter((m) => m.senderName === "Topic Bot").at(-1);
    if (!answer?.html.includes(end)) await new Promise((resolve) => setTimeout(resolve, 100));
  }
  expect(answer?.html, output()).toContain(end);
  return answer!;
}

/** How many times the bot edited its messages (update_message events the console logged). */
async function edits(api: Awaited<ReturnType<typeof devConsole>>["api"]): Promise<number> {
  const { events } = (await api("GET", "/api/events")) as { events: { event: { type: string } }[] };
  return events.filter((e) => e.event.type === "update_message").length;
}

describe("bot dev with the mock language model", () => {
  const children: ChildProcess[] = [];
  afterEach(async () => {
    for (const child of children.splice(0))
      if (child.exitCode === null && child.signalCode === null) {
        child.kill("SIGKILL");
        await once(child, "exit");
      }
  });

  it("runs examples/agent as shipped: a mention gets a streamed answer from the mock", async () => {
    const { api, output } = await devConsole("examples/agent/bot.config.yaml", [], children);
    const answer = await ask(api, "what is the plan?", "You said: what is the plan?", output);
    expect(answer.html).toContain("(mock model) I see 0 earlier messages here.");
    expect(await edits(api), "the answer was edited as it streamed").toBeGreaterThan(0);
  }, 60_000);

  it("--mock-model answers for an agent whose own model cannot", async () => {
    const { api, output } = await devConsole(
      "test/fixtures/agent/bot.config.yaml",
      ["--mock-model"],
      children,
    );
    await ask(api, "hello there", "You said: hello there", output);
  }, 60_000);
});

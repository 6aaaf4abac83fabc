// Benchmark: what the bot and the sandbox cost in a realm of 50,000 users beside one of 100, and beside a bare bot.
import { spawn, type ChildProcess } from "node:child_process";
import { subscribe, unsubscribe } from "node:diagnostics_channel";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import type { IncomingMessage, ServerResponse } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { transform } from "esbuild";
import { createClient, type ApiClient } from "../src/client/index.js";
import { startSandbox, type Sandbox } from "../src/sandbox/server.js";
import { main, median, progress, sleep } from "./lib.js";
import { sandboxServerLines } from "../test/helpers/process.js";

/** The realm sizes compared: the small one is the baseline. */
const SMALL = 100;
const LARGE = 50_000;
/** Rounds of each contender (alternating); medians. */
const ROUNDS = 5;
/** Commands of each kind per start, each awaited before the next; CPU per command is their mean. */
const COMMANDS = 100;
const IDLE_MS = 2_000;
/** Sandbox rows: requests timed in the bench's process at each size. */
const SANDBOX_REQUESTS = 400;
const CREATED_USERS = 300;

const root = new URL("../", import.meta.url);
const bin = fileURLToPath(new URL("bin/bot.js", root));
const bareJs = fileURLToPath(new URL("dist/bench/bare-echo.js", root));
const probe = pathToFileURL(fileURLToPath(new URL("./realm-size-probe.mjs", import.meta.url))).href;

const env = (extra: NodeJS.ProcessEnv): NodeJS.ProcessEnv => ({
  ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("ZULIP_"))),
  LOG_LEVEL: "info",
  ...extra,
});

async function rssMiB(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, "utf8");
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)![1]) / 1024;
}

/** CPU time (user + system) of a process so far, in ms, from /proc (10 ms ticks). */
async function cpuMs(pid: number): Promise<number> {
  const stat = await readFile(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

async function compileBare(): Promise<void> {
  const source = await readFile(fileURLToPath(new URL("bench/bare-echo.ts", root)), "utf8");
  const { code } = await transform(source, { loader: "ts", format: "esm", target: "node20" });
  await mkdir(fileURLToPath(new URL("dist/bench/", root)), { recursive: true });
  await writeFile(bareJs, code);
}

/** A sandbox with `size` users in all: the seeded ones and `Person <n>`s added straight to its realm. */
async function realmOf(size: number): Promise<{ sandbox: Sandbox; people: string[] }> {
  const sandbox = await startSandbox({ heartbeatSeconds: 30 });
  const people: string[] = [];
  for (let n = sandbox.realm.users.size; n < size; n++) {
    const fullName = `Person ${n}`;
    sandbox.realm.addUser({
      email: `person${n}@example.com`,
      fullName,
      password: null,
      role: 400,
      isBot: false,
      botType: null,
      botOwnerId: null,
    });
    people.push(fullName);
  }
  return { sandbox, people };
}

interface Start {
  registrationBytes: number;
  firstAnswer: number;
  /** CPU time (user + system) from spawn to the first answer, in ms: steadier on a loaded machine. */
  startCpu: number;
  idleRss: number;
  heap: number;
  /** Heap after GC once the commands are answered (the names read, for the bot). */
  heapAfter: number;
  /** ms of CPU per command, by command kind. */
  cpu: Record<string, number>;
}

/**
 * Bytes of the POST /register answers the sandbox sends while it listens (as sent: compressed
 * when they were), counted at the response's `write` and `end`.
 */
function registrationCounter(): { bytes: number; stop(): void } {
  const counter = { bytes: 0, stop: () => {} };
  const size = (chunk: unknown): number =>
    typeof chunk === "string"
      ? Buffer.byteLength(chunk)
      : chunk instanceof Uint8Array
        ? chunk.length
        : 0;
  const onRequest = (message: unknown) => {
    const { request, response } = message as { request: IncomingMessage; response: ServerResponse };
    if (request.method !== "POST" || !request.url?.startsWith("/api/v1/register")) return;
    const { write, end } = response;
    response.write = function (this: ServerResponse, chunk: unknown, ...rest: unknown[]) {
      counter.bytes += size(chunk);
      return (write as (...a: unknown[]) => boolean).call(this, chunk, ...rest);
    } as ServerResponse["write"];
    response.end = function (this: ServerResponse, chunk?: unknown, ...rest: unknown[]) {
      if (typeof chunk !== "function") counter.bytes += size(chunk);
      return (end as (...a: unknown[]) => ServerResponse).call(this, chunk, ...rest);
    } as ServerResponse["end"];
  };
  subscribe("http.server.request.start", onRequest);
  counter.stop = () => unsubscribe("http.server.request.start", onRequest);
  return counter;
}

/**
 * Spawns a contender against `sandbox`, times spawn → its answer to `first`, reads its idle RSS and
 * its heap after a full collection (the probe), then sends each kind of `commands` COMMANDS times,
 * one after another, and divides the CPU they took by their number.
 */
async function measure(
  sandbox: Sandbox,
  human: ApiClient,
  args: string[],
  ready: RegExp,
  first: string,
  commands: Record<string, { times: number; text: (i: number) => string }>,
  dir: string,
): Promise<Start> {
  const answers: string[] = [];
  let waiting: (() => void) | undefined;
  const stopListening = sandbox.realm.onMessage((m) => {
    if (m.senderId !== sandbox.bot.userId) return;
    answers.push(m.content);
    waiting?.();
  });
  const counter = registrationCounter();
  const probeFile = join(dir, `probe-${Date.now()}.json`);
  const started = performance.now();
  const child = spawn(process.execPath, ["--expose-gc", "--import", probe, ...args], {
    env: env({ TOPICBOT_REALM_PROBE: probeFile }),
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  child.stdout!.on("data", (c: Buffer) => (out += c.toString()));
  child.stderr!.on("data", (c: Buffer) => (err += c.toString()));
  const waitFor = async (done: () => boolean, what: string): Promise<void> => {
    const deadline = performance.now() + 60_000;
    while (!done()) {
      if (child.exitCode !== null)
        throw new Error(`exited with ${child.exitCode} before ${what}:\n${out}\n${err}`);
      if (performance.now() > deadline) throw new Error(`no ${what} within 60 s:\n${out}\n${err}`);
      await sleep(1);
    }
  };
  /** Posts `content` as Mia and waits for the bot's next message. */
  const ask = async (topic: string, content: string): Promise<void> => {
    const before = answers.length;
    await human.messages.send({ type: "channel", to: "general", topic, content });
    await waitFor(() => answers.length > before, `an answer to ${content}`);
  };
  try {
    await waitFor(() => ready.test(out), "the ready line");
    await ask("realm first", first);
    const firstAnswer = performance.now() - started;
    const startCpu = await cpuMs(child.pid!);
    await sleep(IDLE_MS);
    const idleRss = await rssMiB(child.pid!);
    const heap = await heapAfterGc(child, probeFile);
    const cpu: Record<string, number> = {};
    for (const [kind, { times, text }] of Object.entries(commands)) {
      const before = await cpuMs(child.pid!);
      for (let i = 0; i < times; i++) await ask(`realm ${kind}`, text(i));
      cpu[kind] = ((await cpuMs(child.pid!)) - before) / times;
    }
    const heapAfter = await heapAfterGc(child, probeFile);
    return {
      registrationBytes: counter.bytes,
      firstAnswer,
      startCpu,
      idleRss,
      heap,
      heapAfter,
      cpu,
    };
  } finally {
    counter.stop();
    stopListening();
    await stopChild(child);
  }
}

/** Asks the probe in `child` for its heap after a full collection, in MiB. */
async function heapAfterGc(child: ChildProcess, probeFile: string): Promise<number> {
  await rm(probeFile, { force: true });
  child.kill("SIGUSR2");
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    const probed = await readFile(probeFile, "utf8").then(
      (t) => JSON.parse(t) as { heap: number },
      () => undefined,
    );
    if (probed) return probed.heap;
    await sleep(20);
  }
  throw new Error("the probe did not answer");
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGTERM");
  await exited;
}

/** CPU µs per request the sandbox (with the client, in this process) spends at one realm size. */
async function sandboxCost(size: number): Promise<{ mention: number; create: number }> {
  const { sandbox, people } = await realmOf(size);
  const mia = sandbox.user("mia");
  const adam = sandbox.user("adam");
  sandbox.realm.users.get(adam.userId)!.permissions.add("can_create_users");
  const asMia = createClient({ site: sandbox.url, email: mia.email, apiKey: mia.apiKey });
  const asAdam = createClient({ site: sandbox.url, email: adam.email, apiKey: adam.apiKey });
  try {
    const name = people.at(-1) ?? "Mia Member";
    const cpu = (): number => {
      const u = process.cpuUsage();
      return u.user + u.system;
    };
    for (let i = 0; i < 50; i++)
      await asMia.messages.send({ type: "channel", to: "general", topic: "w", content: `hi ${i}` });
    let at = cpu();
    for (let i = 0; i < SANDBOX_REQUESTS; i++)
      await asMia.messages.send({
        type: "channel",
        to: "general",
        topic: "mentions",
        content: `@**${name}** look ${i}`,
      });
    const mention = (cpu() - at) / SANDBOX_REQUESTS;
    at = cpu();
    for (let i = 0; i < CREATED_USERS; i++)
      await asAdam.users.create({
        email: `new${i}@example.com`,
        password: "pw",
        full_name: `New ${i}`,
      });
    const create = (cpu() - at) / CREATED_USERS;
    return { mention, create };
  } finally {
    await asMia.close();
    await asAdam.close();
    await sandbox.close();
  }
}

void main(async () => {
  await compileBare();
  const dir = await mkdtemp(join(tmpdir(), "topicbot-bench-realm-"));
  const realms = { small: await realmOf(SMALL), large: await realmOf(LARGE) };
  const runs = { small: [] as Start[], large: [] as Start[], bare: [] as Start[] };
  const humans: ApiClient[] = [];
  try {
    const botArgs = async (sandbox: Sandbox, name: string): Promise<string[]> => {
      const config = join(dir, `${name}.yaml`);
      await writeFile(
        config,
        [
          ...sandboxServerLines(sandbox),
          "logging: { level: info, format: json }",
          "rateLimit: false",
          "plugins: [ping, remind]",
          "",
        ].join("\n"),
      );
      return [bin, "start", "-c", config];
    };
    const args = {
      small: await botArgs(realms.small.sandbox, "small"),
      large: await botArgs(realms.large.sandbox, "large"),
    };
    const humanOf = (sandbox: Sandbox): ApiClient => {
      const mia = sandbox.user("mia");
      const client = createClient({ site: sandbox.url, email: mia.email, apiKey: mia.apiKey });
      humans.push(client);
      return client;
    };
    const human = { small: humanOf(realms.small.sandbox), large: humanOf(realms.large.sandbox) };
    const remindOf = (people: string[]) => (i: number) =>
      `!remind @**${people[(i * 7919) % people.length]}** in 10 minutes to stretch`;
    progress(
      `realm-size: ${ROUNDS} rounds of bot start in realms of ${SMALL} and ${LARGE.toLocaleString("en")} users and a bare bot, ${COMMANDS} commands of each kind`,
    );
    for (let round = 0; round < ROUNDS; round++) {
      for (const size of ["small", "large"] as const) {
        const { sandbox, people } = realms[size];
        runs[size].push(
          await measure(
            sandbox,
            human[size],
            args[size],
            /"msg":"ready"/,
            "!ping",
            {
              // The first !remind of a process compiles what it runs: timed on its own.
              "first remind": {
                times: 1,
                text: () => `!remind @**${people[0]}** in 10 minutes to start`,
              },
              ping: { times: COMMANDS, text: () => "!ping" },
              remind: { times: COMMANDS, text: remindOf(people) },
            },
            dir,
          ),
        );
      }
      const { sandbox } = realms.large;
      runs.bare.push(
        await measure(
          sandbox,
          human.large,
          [bareJs, sandbox.url, sandbox.bot.email, sandbox.bot.apiKey],
          /ready/,
          "!echo 0",
          { echo: { times: COMMANDS, text: (i) => `!echo ${i}` } },
          dir,
        ),
      );
      const [s, l, b] = [runs.small.at(-1)!, runs.large.at(-1)!, runs.bare.at(-1)!];
      progress(
        `realm-size: round ${round + 1}: first answer ${s.firstAnswer.toFixed(0)} / ${l.firstAnswer.toFixed(0)} / bare ${b.firstAnswer.toFixed(0)} ms; heap ${s.heap.toFixed(1)} / ${l.heap.toFixed(1)} / bare ${b.heap.toFixed(1)} MiB; !remind ${s.cpu.remind!.toFixed(2)} / ${l.cpu.remind!.toFixed(2)} ms CPU`,
      );
    }
  } finally {
    await Promise.all(humans.map((h) => h.close()));
    await realms.small.sandbox.close();
    await realms.large.sandbox.close();
    await rm(dir, { recursive: true, force: true });
  }
  progress("realm-size: the sandbox's CPU per request at each size");
  type Cost = { mention: number; create: number };
  const costs = { small: [] as Cost[], large: [] as Cost[] };
  for (let round = 0; round < ROUNDS; round++) {
    costs.small.push(await sandboxCost(SMALL));
    costs.large.push(await sandboxCost(LARGE));
  }
  const costOf = (all: Cost[]) => ({
    mention: median(all.map((c) => c.mention)),
    create: median(all.map((c) => c.create)),
  });
  const sandboxSmall = costOf(costs.small);
  const sandboxLarge = costOf(costs.large);

  const med = (starts: Start[], pick: (s: Start) => number): number => median(starts.map(pick));
  const large = LARGE.toLocaleString("en");
  const row = (
    metric: string,
    unit: string,
    pick: (s: Start) => number,
    divide = 1,
  ): { small: number; large: number; bare: number; rows: ReturnType<typeof rowsOf> } => {
    const v = { small: med(runs.small, pick) / divide, large: med(runs.large, pick) / divide };
    const bare = med(runs.bare, pick) / divide;
    return { ...v, bare, rows: rowsOf(metric, unit, v.large, v.small, bare) };
  };
  const rowsOf = (metric: string, unit: string, value: number, small: number, bare?: number) => [
    {
      metric: `${metric}, ${large} users`,
      value,
      baseline: small,
      unit,
      better: "lower" as const,
      baselineIs: `${SMALL} users`,
    },
    ...(bare === undefined
      ? []
      : [
          {
            metric: `${metric}, ${large} users`,
            value,
            baseline: bare,
            unit,
            better: "lower" as const,
            baselineIs: "bare bot (message events only)",
          },
        ]),
  ];
  const registration = row("registration answer", "KiB", (s) => s.registrationBytes, 1024);
  const firstAnswer = row("spawn to first answer (median)", "ms", (s) => s.firstAnswer);
  const startCpu = row("CPU time, spawn to first answer (median)", "ms", (s) => s.startCpu);
  const idleRss = row("idle RSS (median)", "MiB", (s) => s.idleRss);
  const heap = row("heap after GC (median)", "MiB", (s) => s.heap);
  const heapAfter = row(
    "heap after GC once the commands are answered (median)",
    "MiB",
    (s) => s.heapAfter,
  );
  const cpuOf = (kind: string) => ({
    small: med(runs.small, (s) => s.cpu[kind]!),
    large: med(runs.large, (s) => s.cpu[kind]!),
  });
  const ping = cpuOf("ping");
  const remindCpu = cpuOf("remind");
  const firstRemind = cpuOf("first remind");
  const echo = med(runs.bare, (s) => s.cpu.echo!);
  const within = (a: number, b: number) => a <= b * 1.2;
  const goals: [string, number, number][] = [
    ["spawn to first answer", firstAnswer.large, firstAnswer.small],
    ["CPU time to the first answer", startCpu.large, startCpu.small],
    ["idle RSS", idleRss.large, idleRss.small],
    ["heap after GC", heap.large, heap.small],
    ["CPU per !ping", ping.large, ping.small],
    ["CPU per !remind @**Name**", remindCpu.large, remindCpu.small],
    ["sandbox CPU per POST /messages with a mention", sandboxLarge.mention, sandboxSmall.mention],
    ["sandbox CPU per POST /users", sandboxLarge.create, sandboxSmall.create],
  ];
  return {
    name: "realm-size",
    title: `Realm size: ${large} users beside ${SMALL}`,
    method: `The same \`bot start\` (the built CLI, \`ping\` and \`remind\` plugins, memory storage, no command rate limit) against two sandboxes in this process, one of ${SMALL} users and one of ${large} (the seeded accounts and \`Person <n>\`s added to the realm), and beside it a bare bot (\`bench/bare-echo.ts\`: undici, GET /users/me, POST /register for \`message\` events only, a poll loop) in the large realm. Each contender is a fresh process (\`--expose-gc\`, a probe preloaded: \`bench/realm-size-probe.mjs\`), the three alternate, ${ROUNDS} rounds, medians. Registration answer: the bytes of the POST /register answers the sandbox sent it (as sent: compressed when it was). Spawn to first answer: to the sandbox storing its answer to \`!ping\` (the bare bot: \`!echo 0\`) in a fresh topic, and the CPU time (user + system, /proc) the process used to get there, steadier than wall time on a loaded machine. Idle RSS from /proc ${IDLE_MS / 1000} s after; then heap used after three forced collections, and again once the commands below are answered (the users they named cached). Then ${COMMANDS} commands of each kind (\`!ping\`, \`!remind\`; the bare bot \`!echo <n>\`), each awaited: CPU per command from /proc (10 ms ticks) over them. \`!remind @**Person <n>**\` names a different user each time by name (the form the web app's typeahead writes; remind reads the user the server rendered the mention as, with GET /messages/{id}, then the user by ID); the first \`!remind\` of a process, which compiles what it runs, is its own row. Sandbox rows: CPU per request (the sandbox and the client in this process, \`process.cpuUsage\`) for ${SANDBOX_REQUESTS} POST /messages mentioning \`@**<the last user>**\` and ${CREATED_USERS} POST /users, at each size, the sizes alternating, ${ROUNDS} rounds, medians.`,
    rows: [
      ...registration.rows,
      ...firstAnswer.rows,
      ...startCpu.rows,
      ...idleRss.rows,
      ...heap.rows,
      ...heapAfter.rows,
      ...rowsOf("CPU per !ping", "ms", ping.large, ping.small, echo),
      ...rowsOf("CPU per !remind @**Name**", "ms", remindCpu.large, remindCpu.small),
      ...rowsOf(
        "CPU of the first !remind @**Name** of a process",
        "ms",
        firstRemind.large,
        firstRemind.small,
      ),
      ...rowsOf(
        "sandbox CPU per POST /messages with a mention",
        "µs",
        sandboxLarge.mention,
        sandboxSmall.mention,
      ),
      ...rowsOf("sandbox CPU per POST /users", "µs", sandboxLarge.create, sandboxSmall.create),
    ],
    checks: goals.map(([what, value, small]) => ({
      what: `${what} at ${large} users: ${(value / small).toFixed(2)}× the ${SMALL}-user figure (goal ≤ 1.2×)`,
      ok: within(value, small),
      goal: true,
    })),
  };
});

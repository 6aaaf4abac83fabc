// The floor for the dispatch benchmark: a lean pipeline with the same features as topicbot's, nothing more.
// Shape check, exactly-once claim, one ordered lane per conversation, koa-style compose and typed
// arguments for `add <a:number> <b:number> [--note <word>]`, in as little code as can do them.

interface FloorMessage {
  id: number;
  sender_id: number;
  stream_id: number;
  subject: string;
  content: string;
}

export interface FloorContext {
  message: FloorMessage;
  text: string;
  args?: { a: number; b: number; note: string | undefined };
}

type Next = () => Promise<void>;
type Mw = (ctx: FloorContext, next: Next) => unknown;

/** Koa-style compose, without the double-next check's closure per step. */
function compose(mws: Mw[]): (ctx: FloorContext) => Promise<void> {
  return (ctx) => {
    const step = async (i: number): Promise<void> => {
      const mw = mws[i];
      if (mw) await mw(ctx, () => step(i + 1));
    };
    return step(0);
  };
}

/** A typeof check of the fields the pipeline reads. */
function isMessageEvent(e: unknown): e is { type: "message"; message: FloorMessage } {
  const m = (e as { message?: Partial<FloorMessage> }).message;
  return (
    (e as { type?: unknown }).type === "message" &&
    typeof m === "object" &&
    typeof m.id === "number" &&
    typeof m.content === "string" &&
    typeof m.subject === "string" &&
    typeof m.sender_id === "number"
  );
}

/** Remembers the last `size` claimed IDs in a ring; a claimed ID is refused. */
class Claims {
  readonly #ring: number[];
  readonly #set = new Set<number>();
  #at = 0;
  constructor(size: number) {
    this.#ring = new Array<number>(size).fill(-1);
  }
  claim(id: number): boolean {
    if (this.#set.has(id)) return false;
    const old = this.#ring[this.#at]!;
    if (old !== -1) this.#set.delete(old);
    this.#ring[this.#at] = id;
    this.#at = (this.#at + 1) % this.#ring.length;
    this.#set.add(id);
    return true;
  }
}

/** One promise chain per conversation key: messages of one conversation run in order. */
class Lanes {
  readonly #tails = new Map<string, Promise<void>>();
  push(key: string, task: () => Promise<void>): Promise<void> {
    const run = (this.#tails.get(key) ?? Promise.resolve()).then(task);
    this.#tails.set(key, run);
    void run.then(() => {
      if (this.#tails.get(key) === run) this.#tails.delete(key);
    });
    return run;
  }
}

/** `<a:number> <b:number> [--note <word>]`, or undefined on a usage error. */
function parseAdd(rest: string): FloorContext["args"] {
  const words = rest.split(" ");
  const a = Number(words[0]);
  const b = Number(words[1]);
  if (words.length < 2 || Number.isNaN(a) || Number.isNaN(b)) return undefined;
  const noteAt = words.indexOf("--note");
  return { a, b, note: noteAt === -1 ? undefined : words[noteAt + 1] };
}

/**
 * The floor pipeline: `push(events)` validates, claims, and runs each message through the
 * middleware and a three-command router in its conversation's lane.
 */
export function createFloor(
  middleware: Mw,
  commands: Record<string, (ctx: FloorContext) => unknown>,
): { push(events: unknown[]): Promise<void> } {
  const claims = new Claims(1000);
  const lanes = new Lanes();
  const router: Mw = async (ctx) => {
    const space = ctx.text.indexOf(" ");
    const word = space === -1 ? ctx.text : ctx.text.slice(0, space);
    const command = commands[word];
    if (!command) return;
    if (word === "add") {
      ctx.args = parseAdd(space === -1 ? "" : ctx.text.slice(space + 1));
      if (!ctx.args) return;
    }
    await command(ctx);
  };
  const run = compose([middleware, router]);
  return {
    async push(events) {
      const runs: Promise<void>[] = [];
      for (const event of events) {
        if (!isMessageEvent(event) || !claims.claim(event.message.id)) continue;
        const { message } = event;
        if (!message.content.startsWith("!")) continue;
        const ctx: FloorContext = { message, text: message.content.slice(1) };
        runs.push(lanes.push(`${message.stream_id}:${message.subject}`, () => run(ctx)));
      }
      await Promise.all(runs);
    },
  };
}

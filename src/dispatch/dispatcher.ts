// The dispatcher: one ordered lane per conversation, bounded concurrency across lanes, backpressure.

export interface DispatcherOptions {
  /** Lanes (conversations) handled at the same time. */
  concurrency: number;
  /**
   * Messages waiting across all lanes, plus messages handed over (see `Handover`) and not yet
   * delivered, before `whenReady()` holds polling back.
   */
  maxQueued: number;
  /** Called with any error a task throws (tasks should handle their own; this is the last resort). */
  onError?: (error: unknown, key: string) => void;
}

/**
 * What a task returns when it handed its message on to something that finishes it later (an
 * overlap strategy): the lane is released at once (the conversation moves on), and the message
 * counts as held (against `maxQueued`, and in `whenIdle`) until `delivered` settles.
 */
export interface Handover {
  readonly delivered: Promise<unknown>;
}

/** How a task tells its lane that it may move on (exactly once): `done`, or `failed` when it threw. */
export interface LaneRelease {
  /** The lane may move on; with a Handover when the task's message is not done yet. */
  readonly done: (result: Handover | void) => void;
  readonly failed: (error: unknown) => void;
}

/**
 * A task that releases its lane itself, through `lane.done` or `lane.failed`, exactly once. The
 * fast path for the bot's messages (see `ClaimedMessage`): it settles without a promise per task
 * between the handler, the ledger and the lane.
 */
export interface SelfReleasingTask {
  start(lane: LaneRelease): void;
}

/**
 * A task: a function whose promise resolves when its lane may move on (with a Handover when its
 * message is not done yet), or a task that releases its lane itself.
 */
export type Task = (() => Promise<Handover | void>) | SelfReleasingTask;

/** One conversation's queue; its two settle callbacks are made once per lane, not per task. */
interface Lane extends LaneRelease {
  readonly key: string;
  readonly tasks: Fifo<Task>;
  running: boolean;
}

/**
 * A first-in, first-out queue that takes from the front by moving an index, not the items. A
 * fast path for the dispatcher, which takes from two queues per message: `Array.prototype.shift`
 * moves every item left (in optimized code, one store and its write barrier each). Once half of
 * a long queue is taken, the taken half is dropped, so memory stays bounded by what waits.
 */
export class Fifo<T> {
  #items: (T | undefined)[] = [];
  #head = 0;

  /** How many items wait. */
  get size(): number {
    return this.#items.length - this.#head;
  }

  push(item: T): void {
    this.#items.push(item);
  }

  /** The oldest item, taken out; undefined when none waits. */
  shift(): T | undefined {
    const items = this.#items;
    if (this.#head === items.length) return undefined;
    const item = items[this.#head];
    items[this.#head++] = undefined;
    if (this.#head === items.length) {
      items.length = 0;
      this.#head = 0;
    } else if (this.#head >= 1024 && this.#head * 2 >= items.length) {
      items.splice(0, this.#head);
      this.#head = 0;
    }
    return item;
  }
}

/**
 * Runs tasks so that tasks with the same key run one at a time in arrival order, while tasks of
 * different keys run concurrently up to `concurrency`. `whenReady()` resolves only when fewer than
 * `maxQueued` tasks wait, which is how the event loop stops polling instead of growing memory.
 *
 * @example
 * const d = new Dispatcher({ concurrency: 8, maxQueued: 100 });
 * d.push("channel:1:deploys", () => handle(message));
 * await d.whenReady();
 */
export class Dispatcher {
  readonly #options: DispatcherOptions;
  readonly #lanes = new Map<string, Lane>();
  /** Lanes with work and no runner, oldest first (the lanes themselves: no second lookup by key). */
  readonly #ready = new Fifo<Lane>();
  #running = 0;
  #queued = 0;
  /** Messages handed over by their tasks and not yet delivered. */
  #held = 0;
  #roomWaiters: (() => void)[] = [];
  /** Waiters of `whenUnsaturated`, woken once no lane with work waits for a slot. */
  #unsaturatedWaiters: (() => void)[] = [];
  #idleWaiters: (() => void)[] = [];
  /**
   * How many may wait or be held when `whenReady()` waiters wake: a quarter of `maxQueued` below
   * it (one below for a small one). Waking at the first free slot would let the intake take one
   * message per wait, a promise and an await per message for as long as a burst lasts; from the
   * low-water mark it takes a quarter of `maxQueued` in one synchronous pass.
   */
  readonly #lowWater: number;

  constructor(options: DispatcherOptions) {
    if (options.concurrency < 1) throw new RangeError("concurrency must be at least 1");
    this.#options = options;
    this.#lowWater = options.maxQueued - Math.max(1, Math.floor(options.maxQueued / 4));
  }

  /** Tasks waiting or running, and messages handed over and not yet delivered. */
  get pending(): number {
    return this.#queued + this.#running + this.#held;
  }

  /** Lanes currently running a task. */
  get active(): number {
    return this.#running;
  }

  push(key: string, task: Task): void {
    let lane = this.#lanes.get(key);
    if (!lane) {
      lane = this.#newLane(key);
      this.#lanes.set(key, lane);
    }
    lane.tasks.push(task);
    this.#queued++;
    if (!lane.running && lane.tasks.size === 1) this.#ready.push(lane);
    this.#pump();
  }

  /** True while fewer than `maxQueued` tasks wait or are held (`whenReady()` would resolve at once). */
  get hasRoom(): boolean {
    return this.#queued + this.#held < this.#options.maxQueued;
  }

  /**
   * Resolves when there is room for more tasks: at once while fewer than `maxQueued` wait or are
   * held, else once they are down to the low-water mark (a quarter of `maxQueued` below it).
   */
  whenReady(): Promise<void> {
    if (this.hasRoom) return Promise.resolve();
    return new Promise((resolve) => this.#roomWaiters.push(resolve));
  }

  /**
   * True while lanes with work wait for a concurrency slot: a message taken in now would wait
   * behind them (its lane joins the back of that line, or is one of them).
   */
  get saturated(): boolean {
    return this.#ready.size > 0;
  }

  /** Resolves once no lane with work waits for a concurrency slot (at once when none does). */
  whenUnsaturated(): Promise<void> {
    if (this.#ready.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.#unsaturatedWaiters.push(resolve));
  }

  /** Resolves when every task pushed so far has finished. */
  whenIdle(): Promise<void> {
    if (this.pending === 0) return Promise.resolve();
    return new Promise((resolve) => this.#idleWaiters.push(resolve));
  }

  #pump(): void {
    while (this.#running < this.#options.concurrency && this.#ready.size > 0) {
      const lane = this.#ready.shift()!;
      const task = lane.tasks.shift()!;
      this.#queued--;
      lane.running = true;
      this.#running++;
      this.#run(lane, task);
    }
    if (this.#unsaturatedWaiters.length > 0 && this.#ready.size === 0) {
      const waiters = this.#unsaturatedWaiters;
      this.#unsaturatedWaiters = [];
      for (const resolve of waiters) resolve();
    }
    if (this.#roomWaiters.length > 0 && this.#queued + this.#held <= this.#lowWater) {
      const waiters = this.#roomWaiters;
      this.#roomWaiters = [];
      for (const resolve of waiters) resolve();
    }
  }

  #newLane(key: string): Lane {
    const lane: Lane = {
      key,
      tasks: new Fifo<Task>(),
      running: false,
      done: (result) => this.#finished(lane, result),
      failed: (error) => {
        this.#options.onError?.(error, key);
        this.#finished(lane, undefined);
      },
    };
    return lane;
  }

  /**
   * Starts a lane's task. Not an async function on purpose: this runs for every message, and an
   * async frame per message (plus its promise) was the dispatcher's largest allocation; the lane's
   * own callbacks settle it instead.
   */
  #run(lane: Lane, task: Task): void {
    if (typeof task !== "function") {
      try {
        task.start(lane);
      } catch (error) {
        lane.failed(error);
      }
      return;
    }
    let result: Promise<Handover | void>;
    try {
      result = task();
    } catch (error) {
      lane.failed(error);
      return;
    }
    result.then(lane.done, lane.failed);
  }

  /** A lane's task ended: hold its handover if any, then move the lane (and the others) on. */
  #finished(lane: Lane, handover: Handover | void): void {
    if (handover !== undefined) this.#hold(lane.key, handover);
    lane.running = false;
    this.#running--;
    if (lane.tasks.size > 0) this.#ready.push(lane);
    else this.#lanes.delete(lane.key);
    this.#pump();
    this.#wakeIfIdle();
  }

  /** Counts a handed-over message as held until it is delivered. */
  #hold(key: string, handover: Handover): void {
    this.#held++;
    void handover.delivered
      .catch((error: unknown) => this.#options.onError?.(error, key))
      .finally(() => {
        this.#held--;
        this.#pump();
        this.#wakeIfIdle();
      });
  }

  #wakeIfIdle(): void {
    if (this.pending === 0 && this.#idleWaiters.length > 0) {
      const waiters = this.#idleWaiters;
      this.#idleWaiters = [];
      for (const resolve of waiters) resolve();
    }
  }
}

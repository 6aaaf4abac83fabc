// Scheduler: cron jobs that never overlap themselves, log their failures by name, and stop with the bot.
import { silentLogger, type Logger } from "../log/logger.js";
import { systemClock, MAX_TIMER_MS, type SchedulerClock, type TimerHandle } from "./clock.js";
import { compileCron, type CronSchedule } from "./cron.js";

/** What a job receives on each run. */
export interface JobContext {
  /** The job's name, as in logs. */
  name: string;
  /** The fire time this run belongs to (it may start a little later). */
  scheduledAt: Date;
  /** Aborted when the scheduler gives up waiting for the run during `stop()`. */
  signal: AbortSignal;
  /** The job's logger (the one given to `schedule`, with the job's name bound). */
  log: Logger;
}

export type CronJob = (ctx: JobContext) => void | Promise<void>;

export interface ScheduleOptions {
  /** Shown in logs and errors; default `cron <expression>`. Explicit names must be unique. */
  name?: string;
  /** IANA time zone the expression is read in; default the scheduler's, else the process's. */
  timezone?: string;
  /** Logger for this job's lines (a plugin passes its own); default the scheduler's. */
  logger?: Logger;
}

/** A scheduled job, as `schedule` returns it. */
export interface ScheduledJob {
  readonly name: string;
  readonly expression: string;
  readonly timezone: string | undefined;
  /** The next fire time, or undefined once cancelled or stopped. */
  nextRun(): Date | undefined;
  /** Whether a run is in progress. */
  readonly running: boolean;
  /** Runs started so far. */
  readonly runs: number;
  /** Fire times skipped because the previous run was still going. */
  readonly skipped: number;
  /** Stops future runs (a run in progress finishes on its own). */
  cancel(): void;
}

/** One event per fire time, for metrics. */
export interface JobEvent {
  name: string;
  outcome: "ok" | "failed" | "skipped";
  /** Run time in milliseconds (ok and failed). */
  durationMs?: number;
}

export interface SchedulerOptions {
  clock?: SchedulerClock;
  logger?: Logger;
  /** Default time zone for jobs that name none. */
  timezone?: string;
  /** How long `stop()` waits for running jobs by default. Default 10 000 ms. */
  stopTimeoutMs?: number;
  /** Called after each fire time (metrics hook). */
  onJob?: (event: JobEvent) => void;
  /**
   * Cluster mode: claims a job's fire time for this process; resolves false when another node
   * runs it, and the run is left out here. Default: every fire time runs.
   */
  claim?: (job: string, scheduledAt: number) => Promise<boolean>;
}

interface Job extends ScheduledJob {
  cron: CronSchedule;
  fn: CronJob;
  log: Logger;
  nextAt: number | undefined;
  timer: TimerHandle | undefined;
  current: Promise<void> | undefined;
  cancelled: boolean;
  runCount: number;
  skipCount: number;
}

/**
 * Runs cron jobs. Time comes from an injectable clock, so tests drive it without waiting.
 *
 * @example
 * const scheduler = new Scheduler({ logger });
 * scheduler.schedule("0 9 * * 1-5", () => post("Stand-up!"), { name: "standup", timezone: "Europe/Paris" });
 * // ... on shutdown:
 * await scheduler.stop();
 */
export class Scheduler {
  readonly #clock: SchedulerClock;
  readonly #log: Logger;
  readonly #timezone: string | undefined;
  readonly #stopTimeoutMs: number;
  readonly #onJob: ((event: JobEvent) => void) | undefined;
  readonly #claim: SchedulerOptions["claim"];
  readonly #jobs: Job[] = [];
  readonly #abort = new AbortController();
  #stopped = false;

  constructor(options: SchedulerOptions = {}) {
    this.#clock = options.clock ?? systemClock;
    this.#log = options.logger ?? silentLogger();
    this.#timezone = options.timezone;
    this.#stopTimeoutMs = options.stopTimeoutMs ?? 10_000;
    this.#onJob = options.onJob;
    this.#claim = options.claim;
  }

  /**
   * Schedules `job` on a cron expression (5 fields, or 6 with seconds first). Throws
   * CronExpressionError naming the job and the expression when either it or the time zone is bad.
   */
  schedule(expression: string, job: CronJob, options: ScheduleOptions = {}): ScheduledJob {
    const name = options.name ?? `cron ${expression}`;
    if (this.#stopped) throw new Error(`cron job "${name}": the scheduler is stopped`);
    if (options.name !== undefined && this.#jobs.some((j) => j.name === name && !j.cancelled))
      throw new Error(`cron job "${name}": a job with this name is already scheduled`);
    const timezone = options.timezone ?? this.#timezone;
    const cron = compileCron(expression, { timezone, job: name });
    const log = (options.logger ?? this.#log).child({ job: name });
    const state: Job = {
      name,
      expression,
      timezone,
      cron,
      fn: job,
      log,
      nextAt: undefined,
      timer: undefined,
      current: undefined,
      cancelled: false,
      runCount: 0,
      skipCount: 0,
      nextRun: () => (state.nextAt === undefined ? undefined : new Date(state.nextAt)),
      get running() {
        return state.current !== undefined;
      },
      get runs() {
        return state.runCount;
      },
      get skipped() {
        return state.skipCount;
      },
      cancel: () => this.#cancel(state),
    };
    this.#jobs.push(state);
    this.#arm(state, this.#clock.now());
    log.debug({ expression, timezone, next: state.nextRun()?.toISOString() }, "cron job scheduled");
    return state;
  }

  /** The jobs scheduled and not cancelled. */
  jobs(): ScheduledJob[] {
    return this.#jobs.filter((j) => !j.cancelled);
  }

  /**
   * Runs a job now, outside its schedule (skipped, like a fire time, if it is already running).
   * Resolves when that run ends.
   */
  async trigger(name: string): Promise<void> {
    const job = this.#jobs.find((j) => j.name === name && !j.cancelled);
    if (!job) throw new Error(`no cron job named "${name}"`);
    await this.#run(job, this.#clock.now());
  }

  /**
   * Stops every job and waits up to `timeoutMs` for running ones; then aborts their signals.
   * Resolves with the names of jobs still running at the deadline.
   */
  async stop(timeoutMs = this.#stopTimeoutMs): Promise<string[]> {
    this.#stopped = true;
    for (const job of this.#jobs) this.#cancel(job);
    const running = this.#jobs.filter((j) => j.current);
    if (running.length === 0) return [];
    let timer: ReturnType<typeof setTimeout> | undefined;
    const deadline = new Promise<"timeout">((resolve) => {
      timer = setTimeout(() => resolve("timeout"), timeoutMs);
    });
    const outcome = await Promise.race([
      Promise.all(running.map((j) => j.current)).then(() => "done" as const),
      deadline,
    ]);
    clearTimeout(timer);
    if (outcome === "done") return [];
    const unfinished = running.filter((j) => j.current).map((j) => j.name);
    this.#log.warn(
      { jobs: unfinished, timeoutMs },
      "cron jobs still running at shutdown; aborting them",
    );
    this.#abort.abort(new Error("scheduler stopped"));
    return unfinished;
  }

  #cancel(job: Job): void {
    job.cancelled = true;
    job.nextAt = undefined;
    if (job.timer !== undefined) this.#clock.clearTimer(job.timer);
    job.timer = undefined;
  }

  /** Computes the next fire time after `from` and sets a timer for it. */
  #arm(job: Job, from: number): void {
    if (job.cancelled) return;
    const next = job.cron.next(from);
    if (!next) {
      job.nextAt = undefined;
      job.log.warn({ expression: job.expression }, "cron job has no future fire time");
      return;
    }
    job.nextAt = next.getTime();
    this.#wait(job);
  }

  #wait(job: Job): void {
    const delay = Math.min(Math.max(0, job.nextAt! - this.#clock.now()), MAX_TIMER_MS);
    job.timer = this.#clock.setTimer(() => this.#fire(job), delay);
  }

  #fire(job: Job): void {
    job.timer = undefined;
    if (job.cancelled || job.nextAt === undefined) return;
    const now = this.#clock.now();
    if (now < job.nextAt) return this.#wait(job); // a long wait in chunks, or an early timer
    const scheduledAt = job.nextAt;
    void this.#run(job, scheduledAt);
    // Fire times missed while the process slept are skipped: the next one is after now.
    this.#arm(job, Math.max(now, scheduledAt));
  }

  async #run(job: Job, scheduledAt: number): Promise<void> {
    if (job.current) {
      job.skipCount++;
      job.log.warn(
        { scheduledAt: new Date(scheduledAt).toISOString() },
        "cron job still running from its previous fire time; skipped this run",
      );
      this.#onJob?.({ name: job.name, outcome: "skipped" });
      return;
    }
    if (this.#claim) {
      const mine = await this.#claim(job.name, scheduledAt).catch((error: unknown) => {
        job.log.warn({ err: error }, "could not claim the cron run in the cluster; skipped");
        return false;
      });
      if (!mine) return;
    }
    job.runCount++;
    const started = this.#clock.now();
    const ctx: JobContext = {
      name: job.name,
      scheduledAt: new Date(scheduledAt),
      signal: this.#abort.signal,
      log: job.log,
    };
    let finished!: () => void;
    job.current = new Promise<void>((resolve) => (finished = resolve));
    try {
      await job.fn(ctx);
      this.#onJob?.({ name: job.name, outcome: "ok", durationMs: this.#clock.now() - started });
    } catch (error) {
      job.log.error({ err: error }, `cron job "${job.name}" failed`);
      this.#onJob?.({ name: job.name, outcome: "failed", durationMs: this.#clock.now() - started });
    } finally {
      job.current = undefined;
      finished();
    }
  }
}

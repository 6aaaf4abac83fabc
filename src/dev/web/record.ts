// What the console remembers about the session: who produced each bot message, why messages were ignored, recent events.
import type { AnyEvent } from "../../api/events.js";
import type { IgnoredReason } from "../../model/observer.js";
import type { HandledMessage } from "../attribution.js";

/** Who produced a bot message (or acted on a human one), and how long the handler took. */
export interface Produced {
  label: string;
  durationMs?: number;
}

/** A map that forgets its oldest entries past `max`. */
class Bounded<K, V> extends Map<K, V> {
  constructor(readonly max: number) {
    super();
  }
  override set(key: K, value: V): this {
    super.delete(key);
    super.set(key, value);
    if (this.size > this.max) super.delete(this.keys().next().value!);
    return this;
  }
}

/** An event as the log shows it: when the bot received it, and the event itself. */
export interface LoggedEvent {
  seq: number;
  at: number;
  event: AnyEvent;
}

/**
 * The console's memory of the session, kept longer than attribution's few seconds: a page opened
 * later, or a narrow read again, still shows who sent what and why something was ignored.
 */
export class ConsoleRecord {
  /** Bot messages by ID, and handled human messages by ID. */
  readonly produced = new Bounded<number, Produced>(5_000);
  readonly ignored = new Bounded<number, IgnoredReason>(5_000);
  readonly #events: LoggedEvent[] = [];
  #seq = 0;

  /** Notes a bot message's label as soon as it is seen (the duration comes with `handled`). */
  sent(messageId: number, label: string): void {
    const known = this.produced.get(messageId);
    this.produced.set(messageId, { ...known, label: known?.label ?? label });
  }

  handled(h: HandledMessage): void {
    this.produced.set(h.messageId, { label: h.label, durationMs: h.durationMs });
    for (const id of h.sent) this.produced.set(id, { label: h.label, durationMs: h.durationMs });
  }

  event(event: AnyEvent, at: number): LoggedEvent {
    const logged = { seq: ++this.#seq, at, event };
    this.#events.push(logged);
    if (this.#events.length > 500) this.#events.shift();
    return logged;
  }

  /** The latest events, oldest first. */
  events(): readonly LoggedEvent[] {
    return this.#events;
  }
}

// Scheduled messages: stored until the sandbox's clock (manual or real) reaches their time, then sent.
import type { Clock } from "./clock.js";
import { ManualClock } from "./clock.js";
import type { RealmState } from "./realmState.js";
import { sendDirect, sendToChannel, resolveRecipients } from "./send.js";

export interface ScheduledMessage {
  id: number;
  senderId: number;
  kind: "stream" | "private";
  streamId?: number;
  topic: string;
  recipients: number[];
  content: string;
  /** UNIX seconds. */
  deliverAt: number;
  /** Decided when scheduled: `read_by_sender`, or the client-and-recipient heuristic. */
  readBySender: boolean;
  /** The scheduling client's name, which the sent message records. */
  client: string;
  /** Set once sent: the new message's ID. */
  sentMessageId?: number;
  failed?: string;
}

/** Holds scheduled messages and sends each when its time comes, without anyone polling. */
export class Scheduler {
  readonly #realm: RealmState;
  readonly #clock: Clock;
  readonly pending = new Map<number, ScheduledMessage>();
  #timer: NodeJS.Timeout | undefined;
  #unsubscribe: (() => void) | undefined;

  constructor(realm: RealmState, clock: Clock) {
    this.#realm = realm;
    this.#clock = clock;
    if (clock instanceof ManualClock) this.#unsubscribe = clock.onChange(() => this.deliverDue());
  }

  add(init: Omit<ScheduledMessage, "id">): ScheduledMessage {
    const scheduled = { ...init, id: this.#realm.reserveMessageId() };
    this.pending.set(scheduled.id, scheduled);
    this.#realm.pushEvent([init.senderId], {
      type: "scheduled_messages",
      op: "add",
      scheduled_messages: [this.#view(scheduled)],
    });
    this.#arm();
    return scheduled;
  }

  #view(s: ScheduledMessage): Record<string, unknown> {
    return {
      scheduled_message_id: s.id,
      type: s.kind,
      to: s.kind === "stream" ? s.streamId : s.recipients,
      topic: s.topic,
      content: s.content,
      rendered_content: s.content,
      scheduled_delivery_timestamp: s.deliverAt,
      failed: false,
    };
  }

  /** Sends every message whose time has come, in time order. */
  deliverDue(): void {
    const now = this.#clock.now() / 1000;
    const due = [...this.pending.values()]
      .filter((s) => s.deliverAt <= now)
      .sort((a, b) => a.deliverAt - b.deliverAt || a.id - b.id);
    for (const s of due) this.#deliver(s);
    this.#arm();
  }

  #deliver(s: ScheduledMessage): void {
    const realm = this.#realm;
    const sender = realm.users.get(s.senderId);
    this.pending.delete(s.id);
    try {
      if (!sender) throw new Error("sender no longer exists");
      if (s.kind === "stream") {
        const channel = realm.channels.get(s.streamId!);
        if (!channel) throw new Error("channel no longer exists");
        const { message } = sendToChannel(realm, {
          sender,
          channel,
          topic: s.topic,
          content: s.content,
          client: s.client,
          readBySender: s.readBySender,
        });
        s.sentMessageId = message.id;
      } else {
        const message = sendDirect(realm, {
          sender,
          recipients: resolveRecipients(realm, sender, s.recipients),
          content: s.content,
          client: s.client,
          readBySender: s.readBySender,
        });
        s.sentMessageId = message.id;
      }
    } catch (error) {
      s.failed = error instanceof Error ? error.message : String(error);
    }
    realm.pushEvent([s.senderId], {
      type: "scheduled_messages",
      op: "remove",
      scheduled_message_id: s.id,
    });
  }

  /** With a real clock, a timer fires at the next due time; a manual clock calls in on every move. */
  #arm(): void {
    if (this.#unsubscribe) return;
    clearTimeout(this.#timer);
    const next = Math.min(...[...this.pending.values()].map((s) => s.deliverAt));
    if (!Number.isFinite(next)) return;
    const delay = Math.max(0, Math.min(next * 1000 - this.#clock.now(), 2 ** 31 - 1));
    this.#timer = setTimeout(() => this.deliverDue(), delay);
    this.#timer.unref();
  }

  close(): void {
    clearTimeout(this.#timer);
    this.#unsubscribe?.();
  }
}

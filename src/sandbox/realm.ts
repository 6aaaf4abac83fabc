// The sandbox's realm: its state (realmState.ts) with the event queues, uploads and scheduled messages built on it.
import type { Clock } from "./clock.js";
import { messageEvent, messageView, type MessageViewOptions } from "./messageView.js";
import type { QueueRegistry } from "./queues.js";
import { RealmState } from "./realmState.js";
import { Scheduler } from "./scheduled.js";
import { UploadStore } from "./uploads.js";
import type { RealmSettings, SandboxUser, StoredMessage } from "./model.js";

export { DEFAULT_SETTINGS, newSecret } from "./realmState.js";
export type { MessageViewOptions } from "./messageView.js";

/**
 * The realm every route works on: the state, and the queues, uploads and scheduler that call back
 * into it (they see only `RealmState`, so that nothing below imports this file).
 */
export class Realm extends RealmState {
  declare readonly queues: QueueRegistry;
  declare readonly uploads: UploadStore;
  readonly scheduler: Scheduler;

  constructor(settings: RealmSettings, clock: Clock, queues: QueueRegistry) {
    super(settings, clock, queues, new UploadStore());
    this.scheduler = new Scheduler(this, clock);
  }

  /** The message object as `viewer` receives it. */
  messageView(
    message: StoredMessage,
    viewer: SandboxUser,
    options: MessageViewOptions,
  ): Record<string, unknown> {
    return messageView(this, message, viewer, options);
  }

  /** A `message` event's parts for `viewer`: the message object (without `flags`) and the flags beside it. */
  messageEvent(
    message: StoredMessage,
    viewer: SandboxUser,
    options: MessageViewOptions,
  ): { message: Record<string, unknown>; flags: string[] } {
    return messageEvent(this, message, viewer, options);
  }
}

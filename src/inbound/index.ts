// The event layer: where the runtime's events come from.
export {
  EventQueue,
  PollTimeoutError,
  recoveryFor,
  DEFAULT_REREGISTER_AFTER_MS,
} from "./event-queue.js";
export type {
  EventQueueOptions,
  EventSink,
  EventSource,
  EventSourceHooks,
  Recovery,
} from "./event-queue.js";

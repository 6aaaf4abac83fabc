// The event layer: where the runtime's events come from.
export { EventQueue, recoveryFor } from "./queue.js";
export type { EventQueueOptions, EventSink, EventSource, Recovery } from "./queue.js";

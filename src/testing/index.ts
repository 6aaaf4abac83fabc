// topicbot/testing: run plugins against the embedded sandbox and talk to them as a human would.
export { createTestBot } from "./harness.js";
export type { TestBot, TestBotOptions, ObservedScheduled, MoveTarget } from "./harness.js";
export { TestClock } from "./clock.js";
export { dialog } from "./dialog.js";
export type { DialogStep, DialogOptions, SendOptions, DirectOptions } from "./dialog.js";
export { describePluginDefaults } from "./defaults.js";
export type { PluginDefaultsOptions } from "./defaults.js";
export { RealmObserver, observeMessage, placeOf } from "./observe.js";
export type { ObservedMessage, ObservedReaction, ObservedUpload } from "./observe.js";
export type { NewUser } from "./people.js";
export type { ReplyOptions } from "./replies.js";
export type { ObservedReport } from "./reports.js";
export type { Expectation } from "./transcript.js";

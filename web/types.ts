// What the console's server sends the page (mirrors src/dev/web/server.ts).
import type { IgnoredReason } from "../src/model/observer.js";

export interface Person {
  userId: number;
  fullName: string;
  email: string;
  handle: string;
}

export type Place =
  | { type: "channel"; channel: string; topic: string }
  | { type: "direct"; to: string; userId: number; name: string };

/** Why the bot ran no handler for a message: the runtime's own type, not a copy (types only, erased from the bundle). */
export type { IgnoredReason };

/** A message's widget, as the web client draws it (mirrors src/dev/web/widgets.ts). */
export type Widget =
  | {
      type: "choices";
      heading: string;
      choices: { shortName: string; longName: string; reply: string }[];
    }
  | {
      type: "poll";
      question: string;
      options: { key: string; option: string; voters: number[] }[];
    };

export interface ChatMessage {
  id: number;
  senderId: number;
  senderName: string;
  /** The server's rendered HTML, made safe by the console. */
  html: string;
  widget?: Widget;
  timestamp: number;
  /** `unicode` is the emoji itself (absent for custom emoji). */
  reactions: { emoji: string; unicode?: string; userId: number }[];
  produced?: { label: string; durationMs?: number };
  ignored?: IgnoredReason;
}

export type Reload = { changed: string; at?: number } & (
  { ok: true; plugins: string[] } | { ok: false; error: string; location?: string }
);

export interface State {
  description: string;
  remote: boolean;
  prefix: string;
  speaker: Person;
  speakers: Person[];
  bot?: { userId: number; fullName: string; queueId?: string | null };
  plugins: string[];
  commands: { name: string; description?: string }[];
  clock?: { now: number; offset: number };
  faults: {
    id: number;
    route?: string;
    remaining: number | null;
    status?: number;
    drop?: boolean;
  }[];
  /** False under `--no-watch`: plugin files are not reloaded when they change. */
  watching: boolean;
  /** The emoji the page offers to react with. */
  reactionChoices: { name: string; unicode?: string }[];
  reload?: Reload;
}

export interface Sidebar {
  channels: { name: string; topics: string[] }[];
}

export interface LoggedEvent {
  seq: number;
  at: number;
  event: { type: string; id: number; [key: string]: unknown };
}

export interface Inside {
  storage: { name: string; entries: { key: string; value: unknown }[] }[];
  questions: { key: string; value: unknown }[];
  scheduled?: { id: number; where: string; content: string; deliverAt: number }[];
  cron: { name: string; expression: string; nextRun?: number; runs: number; running: boolean }[];
  follows: { where: string; plugin: string; idleMinutes: number; lastActive: number }[];
}

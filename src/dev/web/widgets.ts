// A message's widget as the web client draws it: a zform's choices, or a poll with its votes tallied from the submessages.

/** What the console needs of a submessage (as `GET /messages` lists them). */
export interface SubmessageLike {
  sender_id: number;
  msg_type: string;
  content: string;
}

/** One zform button: the web client shows `shortName` on it and `longName` beside it; a click sends `reply`. */
export interface ShownChoice {
  shortName: string;
  longName: string;
  reply: string;
}

/** One poll option: its key (what a vote names) and who voted for it. */
export interface ShownPollOption {
  key: string;
  option: string;
  voters: number[];
}

export type ShownWidget =
  | { type: "choices"; heading: string; choices: ShownChoice[] }
  | { type: "poll"; question: string; options: ShownPollOption[] };

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

const parse = (text: string): unknown => {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
};

/** A poll's options and votes, replayed event by event as the web client's poll data does. */
function tallyPoll(
  extra: Record<string, unknown>,
  author: number,
  events: readonly SubmessageLike[],
): ShownWidget {
  let question = typeof extra.question === "string" ? extra.question : "";
  const options = new Map<string, { option: string; voters: Set<number> }>();
  const present = (option: string) => [...options.values()].some((o) => o.option === option);
  const canned = Array.isArray(extra.options) ? extra.options : [];
  for (const [i, option] of canned.entries())
    if (typeof option === "string" && !present(option))
      options.set(`canned,${i}`, { option, voters: new Set() });
  for (const event of events) {
    const data = parse(event.content);
    if (!isObject(data)) continue;
    if (data.type === "new_option" && typeof data.option === "string") {
      const idx = data.idx;
      if (typeof idx !== "number" || idx < 0 || idx > 1000 || present(data.option)) continue;
      options.set(`${event.sender_id},${idx}`, { option: data.option, voters: new Set() });
    } else if (data.type === "question" && typeof data.question === "string") {
      // Only the poll's author may change its question.
      if (event.sender_id === author) question = data.question;
    } else if (data.type === "vote" && typeof data.key === "string") {
      const option = options.get(data.key);
      if (!option) continue;
      if (data.vote === 1) option.voters.add(event.sender_id);
      else if (data.vote === -1) option.voters.delete(event.sender_id);
    }
  }
  return {
    type: "poll",
    question,
    options: [...options].map(([key, o]) => ({ key, option: o.option, voters: [...o.voters] })),
  };
}

/**
 * The widget of a message, from its submessages: the first `widget` submessage, from the
 * message's sender, names it (a zform of `choices`, or a poll); later ones are the poll's events.
 * Undefined when there is none the console draws (todo lists and unknown widgets show as content).
 *
 * @example
 * readWidget(message.submessages, message.sender_id);
 * // { type: "poll", question: "Lunch?", options: [{ key: "canned,0", option: "Pizza", voters: [8] }] }
 */
export function readWidget(
  submessages: readonly SubmessageLike[],
  senderId: number,
): ShownWidget | undefined {
  const widgets = submessages.filter((s) => s.msg_type === "widget");
  const first = widgets[0];
  if (!first || first.sender_id !== senderId) return undefined;
  const content = parse(first.content);
  if (!isObject(content) || !isObject(content.extra_data)) return undefined;
  const extra = content.extra_data;
  if (content.widget_type === "zform" && extra.type === "choices" && Array.isArray(extra.choices))
    return {
      type: "choices",
      heading: typeof extra.heading === "string" ? extra.heading : "",
      choices: extra.choices.filter(isObject).map((c) => ({
        shortName: String(c.short_name ?? ""),
        longName: String(c.long_name ?? ""),
        reply: String(c.reply ?? ""),
      })),
    };
  if (content.widget_type === "poll") return tallyPoll(extra, senderId, widgets.slice(1));
  return undefined;
}

/** The vote the web client sends for `key` by `voter`: 1 to add it, -1 to take back one they made. */
export function voteFor(
  widget: ShownWidget,
  key: string,
  voter: number,
): { type: "vote"; key: string; vote: 1 | -1 } | undefined {
  if (widget.type !== "poll") return undefined;
  const option = widget.options.find((o) => o.key === key);
  if (!option) return undefined;
  return { type: "vote", key, vote: option.voters.includes(voter) ? -1 : 1 };
}

// Message widgets as the Zulip web client draws them: zform choices (a click sends the reply text) and polls (a click votes).
import { useState } from "preact/hooks";
import { call } from "./api.js";
import type { ChatMessage, Widget } from "./types.js";

/** Local date and time of a `<time datetime>`, as the web client shows a mentioned time. */
export const localTime = (iso: string): string =>
  new Date(iso).toLocaleString([], {
    weekday: "short",
    year: "numeric",
    month: "short",
    day: "numeric",
    hour: "numeric",
    minute: "2-digit",
  });

function Choices({ m, widget }: { m: ChatMessage; widget: Extract<Widget, { type: "choices" }> }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  const choose = async (index: number) => {
    setBusy(true);
    try {
      await call("POST", "/api/choose", { messageId: m.id, index });
      setError(undefined);
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
    } finally {
      setBusy(false);
    }
  };
  return (
    <div class="widget zform" aria-label={`Choices: ${widget.heading}`} role="group">
      {widget.heading && <p class="widget-heading">{widget.heading}</p>}
      <ul>
        {widget.choices.map((c, i) => (
          <li key={i}>
            <button
              type="button"
              disabled={busy}
              title={`sends "${c.reply}" as you, here`}
              onClick={() => void choose(i)}
            >
              {c.shortName}
            </button>{" "}
            {c.longName}
          </li>
        ))}
      </ul>
      {error && (
        <p class="why" role="alert">
          {error}
        </p>
      )}
    </div>
  );
}

function Poll({
  m,
  widget,
  me,
  names,
  onVoted,
}: {
  m: ChatMessage;
  widget: Extract<Widget, { type: "poll" }>;
  me: number;
  names: (id: number) => string;
  onVoted: () => void;
}) {
  const [error, setError] = useState<string>();
  const vote = async (key: string) => {
    try {
      await call("POST", "/api/vote", { messageId: m.id, key });
      setError(undefined);
      onVoted();
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
    }
  };
  return (
    <div class="widget poll" role="group" aria-label={`Poll: ${widget.question}`}>
      <p class="widget-heading">{widget.question || "(no question)"}</p>
      <ul>
        {widget.options.map((o) => {
          const mine = o.voters.includes(me);
          return (
            <li key={o.key}>
              <button
                type="button"
                class={`vote${mine ? " mine" : ""}`}
                aria-pressed={mine}
                aria-label={`Vote for ${o.option} (${o.voters.length} ${o.voters.length === 1 ? "vote" : "votes"})`}
                onClick={() => void vote(o.key)}
              >
                {o.voters.length}
              </button>{" "}
              <span class="option">{o.option}</span>
              {o.voters.length > 0 && (
                <span class="voters"> ({o.voters.map(names).join(", ")})</span>
              )}
            </li>
          );
        })}
      </ul>
      {error && (
        <p class="why" role="alert">
          {error}
        </p>
      )}
    </div>
  );
}

/** The widget of a message, in place of its content (as the web client replaces it). */
export function WidgetView(props: {
  m: ChatMessage;
  widget: Widget;
  me: number;
  names: (id: number) => string;
  onVoted: () => void;
}) {
  return props.widget.type === "choices" ? (
    <Choices m={props.m} widget={props.widget} />
  ) : (
    <Poll {...props} widget={props.widget} />
  );
}

// The console's right pane: the bot's event log, its storage, what it scheduled, and the controls (clock, faults).
import { useEffect, useState } from "preact/hooks";
import { call } from "./api.js";
import type { Inside, LoggedEvent, State } from "./types.js";

const TABS = ["Events", "Storage", "Schedule", "Control"] as const;
type Tab = (typeof TABS)[number];

const json = (value: unknown): string => JSON.stringify(value, null, 2);
const when = (ms: number | undefined): string =>
  ms === undefined ? "—" : new Date(ms).toLocaleString();

function EventLog({ events }: { events: LoggedEvent[] }) {
  const [type, setType] = useState("");
  const [text, setText] = useState("");
  const types = [...new Set(events.map((e) => e.event.type))].sort();
  const shown = events
    .filter(
      (e) =>
        (type === "" || e.event.type === type) &&
        (text === "" || JSON.stringify(e.event).includes(text)),
    )
    .slice(-100)
    .reverse();
  return (
    <section aria-label="Events the bot received">
      <div class="filters">
        <label>
          Type{" "}
          <select value={type} onChange={(e) => setType((e.target as HTMLSelectElement).value)}>
            <option value="">all ({events.length})</option>
            {types.map((t) => (
              <option key={t} value={t}>
                {t}
              </option>
            ))}
          </select>
        </label>
        <label>
          Contains{" "}
          <input value={text} onInput={(e) => setText((e.target as HTMLInputElement).value)} />
        </label>
      </div>
      <ol class="events">
        {shown.map((e) => (
          <li key={e.seq}>
            <details>
              <summary>
                <code>{e.event.type}</code> #{e.event.id}{" "}
                <time>{new Date(e.at).toLocaleTimeString()}</time>
              </summary>
              <pre>{json(e.event)}</pre>
            </details>
          </li>
        ))}
      </ol>
    </section>
  );
}

function StorageView({ inside }: { inside: Inside }) {
  return (
    <section aria-label="Plugin storage and open questions">
      <h3>Followed conversations (ctx.follow)</h3>
      {inside.follows.length === 0 ? (
        <p class="empty">none</p>
      ) : (
        <table aria-label="Followed conversations">
          <thead>
            <tr>
              <th scope="col">Where</th>
              <th scope="col">Plugin</th>
              <th scope="col">Ends after</th>
              <th scope="col">Last message</th>
            </tr>
          </thead>
          <tbody>
            {inside.follows.map((f) => (
              <tr key={`${f.where} ${f.plugin}`}>
                <td>{f.where}</td>
                <td>{f.plugin}</td>
                <td>{f.idleMinutes} min idle</td>
                <td>{when(f.lastActive)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <h3>Open questions (ctx.ask)</h3>
      {inside.questions.length === 0 ? (
        <p class="empty">none waiting</p>
      ) : (
        <pre>{json(inside.questions)}</pre>
      )}
      {inside.storage.map((ns) => (
        <div key={ns.name}>
          <h3>{ns.name}</h3>
          {ns.entries.length === 0 ? (
            <p class="empty">empty</p>
          ) : (
            <table>
              <thead>
                <tr>
                  <th scope="col">Key</th>
                  <th scope="col">Value</th>
                </tr>
              </thead>
              <tbody>
                {ns.entries.map((e) => (
                  <tr key={e.key}>
                    <td>
                      <code>{e.key}</code>
                    </td>
                    <td>
                      <pre>{json(e.value)}</pre>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </div>
      ))}
    </section>
  );
}

function ScheduleView({ inside }: { inside: Inside }) {
  return (
    <section aria-label="Scheduled messages and cron jobs">
      <h3>Scheduled messages</h3>
      {inside.scheduled === undefined ? (
        <p class="empty">shown in the sandbox only</p>
      ) : inside.scheduled.length === 0 ? (
        <p class="empty">none</p>
      ) : (
        <ul>
          {inside.scheduled.map((s) => (
            <li key={s.id}>
              <time>{when(s.deliverAt)}</time> to {s.where}: {s.content}
            </li>
          ))}
        </ul>
      )}
      <h3>Cron jobs</h3>
      {inside.cron.length === 0 ? (
        <p class="empty">none</p>
      ) : (
        <ul>
          {inside.cron.map((j) => (
            <li key={j.name}>
              <code>{j.name}</code> ({j.expression}): next run {when(j.nextRun)}, {j.runs} run(s)
              {j.running ? ", running" : ""}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

const JUMPS = [
  ["+1 min", 60_000],
  ["+1 h", 3_600_000],
  ["+1 day", 86_400_000],
] as const;

const FAULTS = [
  ["drop-polls", "Drop the bot's next 2 polls"],
  ["send-5xx", "Fail the bot's next 2 sends (503)"],
  ["expire-queue", "Expire the bot's event queue"],
  ["clear", "Clear faults"],
] as const;

function Control({ state, onError }: { state: State; onError: (e: unknown) => void }) {
  const sandboxOnly = state.remote ? "Only in the embedded sandbox (not with --me)." : undefined;
  return (
    <section aria-label="Control">
      <h3>Clock</h3>
      {sandboxOnly ? (
        <p class="empty">{sandboxOnly}</p>
      ) : (
        <div class="buttons" role="group" aria-label="Move the clock ahead">
          {JUMPS.map(([label, ms]) => (
            <button
              type="button"
              key={label}
              aria-label={`Move the clock ahead ${label.slice(1)}`}
              onClick={() => void call("POST", "/api/clock", { ms }).catch(onError)}
            >
              {label}
            </button>
          ))}
        </div>
      )}
      <h3>Faults</h3>
      {sandboxOnly ? (
        <p class="empty">{sandboxOnly}</p>
      ) : (
        <div class="buttons" role="group" aria-label="Inject faults">
          {FAULTS.map(([kind, label]) => (
            <button
              type="button"
              key={kind}
              onClick={() => void call("POST", "/api/fault", { kind }).catch(onError)}
            >
              {label}
            </button>
          ))}
        </div>
      )}
      <p>
        Bot queue: <code>{state.bot?.queueId ?? "not registered"}</code>
      </p>
      {state.faults.length > 0 && (
        <ul aria-label="Active faults">
          {state.faults.map((f) => (
            <li key={f.id}>
              {f.route ?? "every route"}: {f.drop ? "dropped" : `HTTP ${f.status}`},{" "}
              {f.remaining ?? "∞"} left
            </li>
          ))}
        </ul>
      )}
      <h3>Plugins and commands</h3>
      <p>{state.plugins.join(", ") || "no plugins"}</p>
      <ul class="commands">
        {state.commands.map((c) => (
          <li key={c.name}>
            <code>
              {state.prefix}
              {c.name}
            </code>{" "}
            {c.description}
          </li>
        ))}
      </ul>
    </section>
  );
}

/** The tabbed pane; storage and schedule are re-read while shown, so they stay live. */
export function Inspector({
  state,
  events,
  onError,
}: {
  state: State;
  events: LoggedEvent[];
  onError: (e: unknown) => void;
}) {
  const [tab, setTab] = useState<Tab>("Events");
  const [inside, setInside] = useState<Inside>();
  useEffect(() => {
    if (tab !== "Storage" && tab !== "Schedule") return;
    let stopped = false;
    const read = () =>
      void call<Inside>("GET", "/api/inside").then((i) => !stopped && setInside(i), onError);
    read();
    const timer = setInterval(read, 1000);
    return () => {
      stopped = true;
      clearInterval(timer);
    };
  }, [tab]);
  const onKey = (e: KeyboardEvent) => {
    const i = TABS.indexOf(tab);
    const next =
      e.key === "ArrowRight"
        ? (i + 1) % TABS.length
        : e.key === "ArrowLeft"
          ? (i + TABS.length - 1) % TABS.length
          : -1;
    if (next < 0) return;
    setTab(TABS[next]!);
    document.getElementById(`tab-${TABS[next]}`)?.focus();
  };
  return (
    <aside class="inspector" aria-label="Inside the bot">
      <div role="tablist" aria-label="Inside the bot" onKeyDown={onKey}>
        {TABS.map((t) => (
          <button
            type="button"
            role="tab"
            id={`tab-${t}`}
            key={t}
            aria-selected={tab === t}
            aria-controls="inspector-panel"
            tabIndex={tab === t ? 0 : -1}
            onClick={() => setTab(t)}
          >
            {t}
          </button>
        ))}
      </div>
      <div id="inspector-panel" role="tabpanel" aria-labelledby={`tab-${tab}`} tabIndex={0}>
        {tab === "Events" && <EventLog events={events} />}
        {tab === "Storage" && (inside ? <StorageView inside={inside} /> : <p>Reading…</p>)}
        {tab === "Schedule" && (inside ? <ScheduleView inside={inside} /> : <p>Reading…</p>)}
        {tab === "Control" && <Control state={state} onError={onError} />}
      </div>
    </aside>
  );
}

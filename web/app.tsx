// The `bot dev --web` console page: chat beside the bot's insides (why it answered, events, storage, schedule, faults).
import { render } from "preact";
import { useCallback, useEffect, useMemo, useRef, useState } from "preact/hooks";
import { call, stream } from "./api.js";
import { Inspector } from "./inspector.js";
import { localTime, WidgetView } from "./widgets.js";
import type { ChatMessage, IgnoredReason, LoggedEvent, Place, Sidebar, State } from "./types.js";
import "./app.css";

/** Why a message got no handler, in words. */
export function explainIgnored(why: IgnoredReason, prefix: string): string {
  switch (why.reason) {
    case "not-addressed":
      return `ignored: not addressed to the bot (no ${prefix} prefix, no leading @-mention, not a DM)`;
    case "rate-limited":
      return `ignored: rate-limited, try again in ${Math.ceil(why.retryInMs / 1000)} s`;
    case "unknown-command":
      return `no such command${why.word ? ` "${why.word}"` : ""}: the bot answered "${why.reply}"`;
    case "role-refused":
      return `refused: ${prefix}${why.command} is not for the role ${why.role ?? "unknown"}; the bot answered "${why.reply}"`;
    case "usage":
      return `refused: wrong arguments for ${prefix}${why.command}`;
  }
}

const placeTitle = (p: Place): string =>
  p.type === "channel" ? `#${p.channel} > ${p.topic}` : `DM with ${p.name}`;

const time = (seconds: number): string =>
  new Date(seconds * 1000).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });

function ReloadIndicator({ reload, watching }: { reload: State["reload"]; watching: boolean }) {
  if (!reload)
    return (
      <span class="pill">
        {watching ? "watching plugin files" : "not watching plugin files (--no-watch)"}
      </span>
    );
  if (reload.ok)
    return (
      <span class="pill ok">
        ↻ reloaded {reload.plugins.join(", ")} ({reload.changed} changed)
      </span>
    );
  return (
    <span class="pill bad">
      ✗ reload failed{reload.location ? ` at ${reload.location}` : ""}:{" "}
      {reload.error.split("\n")[0]} (the previous version keeps running)
    </span>
  );
}

function MessageView({
  m,
  state,
  mobile,
  names,
  onReact,
  onVoted,
}: {
  m: ChatMessage;
  state: State;
  /** Show only what mobile clients show: the content, no widget. */
  mobile: boolean;
  names: (id: number) => string;
  onReact: (id: number, emoji: string) => void;
  onVoted: () => void;
}) {
  const isBot = m.senderId === state.bot?.userId;
  const content = useRef<HTMLDivElement>(null);
  const widget = mobile ? undefined : m.widget;
  // Links to uploaded images get a preview, as chat clients show them (a real server may add its own).
  useEffect(() => {
    for (const link of content.current?.querySelectorAll<HTMLAnchorElement>(
      "a[href^='/user_uploads/']",
    ) ?? []) {
      if (!/\.(png|jpe?g|gif|webp|svg)$/i.test(link.pathname) || link.querySelector("img"))
        continue;
      const img = document.createElement("img");
      img.src = link.getAttribute("href")!;
      img.alt = link.textContent ?? "uploaded image";
      link.append(document.createElement("br"), img);
    }
    // A mentioned time (`<time:…>`) in the reader's own time zone, as the web client shows it.
    for (const el of content.current?.querySelectorAll<HTMLTimeElement>("time[datetime]") ?? []) {
      if (el.dataset.local) continue;
      el.title = el.textContent ?? "";
      el.textContent = localTime(el.dateTime);
      el.dataset.local = "1";
    }
  }, [m.html, widget]);
  const counts = new Map<string, { n: number; unicode?: string }>();
  for (const r of m.reactions)
    counts.set(r.emoji, { n: (counts.get(r.emoji)?.n ?? 0) + 1, unicode: r.unicode });
  return (
    <article
      class={`message${isBot ? " bot" : ""}`}
      aria-label={`${m.senderName} at ${time(m.timestamp)}`}
    >
      <header>
        <strong>{m.senderName}</strong> <time>{time(m.timestamp)}</time>
        {m.produced && (
          <span
            class="via"
            title={
              isBot
                ? "the plugin and handler that sent this"
                : "the plugin and handler that handled this"
            }
          >
            {isBot ? "" : m.ignored ? "reached " : "handled by "}
            {m.produced.label}
            {m.produced.durationMs !== undefined && ` · ${Math.round(m.produced.durationMs)} ms`}
          </span>
        )}
      </header>
      {widget ? (
        <WidgetView
          m={m}
          widget={widget}
          me={state.speaker.userId}
          names={names}
          onVoted={onVoted}
        />
      ) : (
        <div class="content" ref={content} dangerouslySetInnerHTML={{ __html: m.html }} />
      )}
      {m.ignored && (
        <p class="why" role="note">
          {explainIgnored(m.ignored, state.prefix)}
        </p>
      )}
      <div class="reactions">
        {[...counts].map(([emoji, { n, unicode }]) => (
          <span class="reaction" key={emoji} title={`:${emoji}:`} aria-label={`:${emoji}: ${n}`}>
            {unicode ?? `:${emoji}:`} {n}
          </span>
        ))}
        {state.reactionChoices.map(({ name, unicode }) => (
          <button
            type="button"
            class="react"
            key={name}
            aria-label={`React with :${name}: to ${m.senderName}'s message`}
            onClick={() => onReact(m.id, name)}
          >
            +{unicode ?? `:${name}:`}
          </button>
        ))}
      </div>
    </article>
  );
}

function Compose({
  place,
  onSend,
  onError,
}: {
  place: Place;
  onSend: (text: string) => Promise<void>;
  onError: (e: unknown) => void;
}) {
  const [text, setText] = useState("");
  const file = useRef<HTMLInputElement>(null);
  const send = async () => {
    if (text.trim() === "") return;
    const sent = text;
    setText("");
    try {
      await onSend(sent);
    } catch (error) {
      setText(sent);
      onError(error);
    }
  };
  const upload = async () => {
    const chosen = file.current?.files?.[0];
    if (!chosen) return;
    try {
      const { url, filename } = await call<{ url: string; filename: string }>(
        "POST",
        `/api/upload?filename=${encodeURIComponent(chosen.name)}`,
        chosen,
        chosen.type || "application/octet-stream",
      );
      setText((t) => `${t}${t && !t.endsWith(" ") ? " " : ""}[${filename}](${url})`);
    } catch (error) {
      onError(error);
    }
    file.current!.value = "";
  };
  return (
    <form
      class="compose"
      onSubmit={(e) => {
        e.preventDefault();
        void send();
      }}
    >
      <label for="compose-text" class="sr-only">
        Message to {placeTitle(place)}
      </label>
      <textarea
        id="compose-text"
        rows={2}
        value={text}
        placeholder={`Message ${placeTitle(place)} (Enter sends, Shift+Enter for a new line)`}
        onInput={(e) => setText((e.target as HTMLTextAreaElement).value)}
        onKeyDown={(e) => {
          if (e.key === "Enter" && !e.shiftKey && !e.isComposing) {
            e.preventDefault();
            void send();
          }
        }}
      />
      <div class="compose-actions">
        <label class="button">
          Upload a file
          <input ref={file} type="file" class="sr-only" onChange={() => void upload()} />
        </label>
        <button type="submit">Send</button>
      </div>
    </form>
  );
}

function App() {
  const [state, setState] = useState<State>();
  const [connected, setConnected] = useState(false);
  const [sidebar, setSidebar] = useState<Sidebar>({ channels: [] });
  const [place, setPlace] = useState<Place>({ type: "channel", channel: "general", topic: "dev" });
  const [messages, setMessages] = useState<ChatMessage[]>([]);
  const [events, setEvents] = useState<LoggedEvent[]>([]);
  const [notice, setNotice] = useState<string>();
  const [newTopic, setNewTopic] = useState("");
  const [newChannel, setNewChannel] = useState("");
  const [mobile, setMobile] = useState(false);
  const [saved, setSaved] = useState<string>();
  const list = useRef<HTMLDivElement>(null);
  const placeRef = useRef(place);
  placeRef.current = place;

  const fail = useCallback(
    (error: unknown) => setNotice(error instanceof Error ? error.message : String(error)),
    [],
  );

  const loadMessages = useCallback(async () => {
    const p = placeRef.current;
    const query =
      p.type === "channel"
        ? `channel=${encodeURIComponent(p.channel)}&topic=${encodeURIComponent(p.topic)}`
        : `dm=${p.userId}`;
    const { messages } = await call<{ messages: ChatMessage[] }>("GET", `/api/messages?${query}`);
    setMessages(messages);
  }, []);
  const loadSidebar = useCallback(
    async () => setSidebar(await call<Sidebar>("GET", "/api/sidebar")),
    [],
  );

  // Refetches coalesced: a burst of events reads the narrow once.
  const timers = useRef<Record<string, number>>({});
  const soon = useCallback(
    (key: string, work: () => Promise<void>) => {
      clearTimeout(timers.current[key]);
      timers.current[key] = window.setTimeout(() => void work().catch(fail), 80);
    },
    [fail],
  );

  useEffect(() => {
    void call<{ events: LoggedEvent[] }>("GET", "/api/events").then(
      (r) => setEvents([...r.events]),
      fail,
    );
    const source = stream(
      ["state", "message", "reaction", "upload", "handled", "ignored", "event", "sidebar", "fault"],
      (type, data) => {
        if (type === "state") setState(data as State);
        else if (type === "event") {
          setEvents((list) => [...list.slice(-299), data as LoggedEvent]);
          // Poll votes reach the page through the bot's events (narrows never filter submessages).
          if ((data as LoggedEvent).event.type === "submessage") soon("messages", loadMessages);
        } else if (type === "sidebar") soon("sidebar", loadSidebar);
        else {
          soon("messages", loadMessages);
          if (type === "message") soon("sidebar", loadSidebar);
        }
      },
      setConnected,
    );
    return () => source.close();
  }, []);

  useEffect(() => {
    void loadMessages().catch(fail);
    void loadSidebar().catch(fail);
  }, [place, state?.speaker.userId]);

  useEffect(() => {
    const el = list.current;
    if (el) el.scrollTop = el.scrollHeight;
  }, [messages]);

  const people = useMemo(() => {
    if (!state) return [];
    const others = state.speakers.filter((p) => p.userId !== state.speaker.userId);
    return [
      ...(state.bot
        ? [{ handle: "bot", userId: state.bot.userId, fullName: `${state.bot.fullName} (the bot)` }]
        : []),
      ...others,
    ];
  }, [state]);

  if (!state) return <p class="loading">Connecting to bot dev…</p>;

  const send = (text: string) =>
    call("POST", "/api/send", { place, text }).then(() => setNotice(undefined));
  const react = (id: number, emoji: string) =>
    void call("POST", "/api/react", { messageId: id, emoji }).catch(fail);
  const voted = () => soon("messages", loadMessages);
  const nameOf = (id: number): string =>
    id === state.bot?.userId
      ? state.bot.fullName
      : (state.speakers.find((p) => p.userId === id)?.fullName ?? `user ${id}`);
  const saveTest = () =>
    void call<{ file: string; steps: number }>("POST", "/api/save-test", { place })
      .then((r) => setSaved(`Saved ${r.steps} steps as ${r.file}`))
      .catch(fail);

  return (
    <div class="layout">
      <header class="top">
        <h1>topicbot dev</h1>
        <span class="world">{state.description}</span>
        <span class={`pill ${connected ? "ok" : "bad"}`} role="status">
          {connected ? "live" : "disconnected: is bot dev still running?"}
        </span>
        <span role="status" aria-live="polite" class="reload">
          <ReloadIndicator reload={state.reload} watching={state.watching} />
        </span>
        {state.clock && (
          <span class="pill" title="the sandbox's clock (moved ahead in Control)">
            Clock {new Date(state.clock.now).toLocaleString()}
            {state.clock.offset > 0 && ` (+${Math.round(state.clock.offset / 60_000)} min)`}
          </span>
        )}
        <label class="speaker">
          Speak as{" "}
          <select
            value={state.speaker.handle}
            disabled={state.remote}
            onChange={(e) =>
              void call("POST", "/api/as", { handle: (e.target as HTMLSelectElement).value }).catch(
                fail,
              )
            }
          >
            {state.speakers.map((p) => (
              <option key={p.handle} value={p.handle}>
                {p.fullName} ({p.handle})
              </option>
            ))}
          </select>
        </label>
      </header>

      <nav class="side" aria-label="Channels and direct messages">
        <h2>Channels</h2>
        <ul>
          {sidebar.channels.map((c) => (
            <li key={c.name}>
              <button
                type="button"
                class="channel"
                aria-current={
                  place.type === "channel" &&
                  place.channel === c.name &&
                  !c.topics.includes(place.topic)
                    ? "page"
                    : undefined
                }
                onClick={() =>
                  setPlace({ type: "channel", channel: c.name, topic: c.topics[0] ?? "dev" })
                }
              >
                #{c.name}
              </button>
              <ul>
                {c.topics.map((t) => (
                  <li key={t}>
                    <button
                      type="button"
                      class="topic"
                      aria-current={
                        place.type === "channel" && place.channel === c.name && place.topic === t
                          ? "page"
                          : undefined
                      }
                      onClick={() => setPlace({ type: "channel", channel: c.name, topic: t })}
                    >
                      {t}
                    </button>
                  </li>
                ))}
              </ul>
            </li>
          ))}
        </ul>
        {!state.remote && (
          <form
            class="inline"
            onSubmit={(e) => {
              e.preventDefault();
              const name = newChannel.trim().replace(/^#/, "");
              if (!name) return;
              void call("POST", "/api/channel", { name })
                .then(() => {
                  setNewChannel("");
                  setPlace({ type: "channel", channel: name, topic: "dev" });
                })
                .catch(fail);
            }}
          >
            <label for="new-channel">New channel</label>
            <input
              id="new-channel"
              value={newChannel}
              onInput={(e) => setNewChannel((e.target as HTMLInputElement).value)}
            />
            <button type="submit">Create</button>
          </form>
        )}
        <h2>Direct messages</h2>
        <ul>
          {people.map((p) => (
            <li key={p.userId}>
              <button
                type="button"
                class="topic"
                aria-current={
                  place.type === "direct" && place.userId === p.userId ? "page" : undefined
                }
                onClick={() =>
                  setPlace({ type: "direct", to: p.handle, userId: p.userId, name: p.fullName })
                }
              >
                {p.fullName}
              </button>
            </li>
          ))}
        </ul>
      </nav>

      <main class="chat">
        <div class="chat-head">
          <h2>{placeTitle(place)}</h2>
          {place.type === "channel" && (
            <form
              class="inline"
              onSubmit={(e) => {
                e.preventDefault();
                if (newTopic.trim()) setPlace({ ...place, topic: newTopic.trim() });
                setNewTopic("");
              }}
            >
              <label for="new-topic">Go to topic</label>
              <input
                id="new-topic"
                value={newTopic}
                placeholder="new or existing"
                onInput={(e) => setNewTopic((e.target as HTMLInputElement).value)}
              />
              <button type="submit">Go</button>
            </form>
          )}
          <label class="toggle" title="Mobile clients show a message's content alone, no widgets">
            <input
              type="checkbox"
              checked={mobile}
              onChange={(e) => setMobile((e.target as HTMLInputElement).checked)}
            />{" "}
            Mobile view
          </label>
          <button type="button" onClick={saveTest}>
            Save this conversation as a test
          </button>
        </div>
        {saved && (
          <p class="saved" role="status">
            {saved}
          </p>
        )}
        <div
          class="messages"
          ref={list}
          role="log"
          aria-live="polite"
          aria-label={`Messages in ${placeTitle(place)}`}
          tabIndex={0}
        >
          {messages.length === 0 && (
            <p class="empty">No messages yet. Say {state.prefix}help to the bot.</p>
          )}
          {messages.map((m) => (
            <MessageView
              key={m.id}
              m={m}
              state={state}
              mobile={mobile}
              names={nameOf}
              onReact={react}
              onVoted={voted}
            />
          ))}
        </div>
        {notice && (
          <p class="notice" role="alert">
            {notice}{" "}
            <button type="button" onClick={() => setNotice(undefined)}>
              Dismiss
            </button>
          </p>
        )}
        <Compose place={place} onSend={send} onError={fail} />
      </main>

      <Inspector state={state} events={events} onError={fail} />
    </div>
  );
}

render(<App />, document.getElementById("app")!);

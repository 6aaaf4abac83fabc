// github: a plugin posting GitHub webhook events (push, pull request, issues, release, workflow run) as concise messages.
import { code, codeBlock, definePlugin, inline, link, WebhookError, z } from "topicbot";
import type { RouteDefinition, SendFn } from "topicbot/webhooks";

/** A rendered event: where it goes and what it says. */
export interface GithubMessage {
  topic: string;
  content: string;
}

/** The events rendered; others (and uninteresting actions) render to undefined. */
export const GITHUB_EVENTS = ["push", "pull_request", "issues", "release", "workflow_run"] as const;
export type GithubEvent = (typeof GITHUB_EVENTS)[number];

/** Longest topic the server accepts, in code points. */
const MAX_TOPIC = 60;
/** Commits listed for one push; the rest are counted. */
const MAX_COMMITS = 5;

type Json = Record<string, unknown>;

const obj = (value: unknown): Json =>
  value !== null && typeof value === "object" ? (value as Json) : {};
const str = (value: unknown): string => (typeof value === "string" ? value : "");

/**
 * Text from the payload, through the escaping layer: mentions made inert, and kept on its line
 * (a title with a line break must not forge a line of its own). Links (`link`) take their target
 * through `linkTarget`: a crafted URL cannot close the link and add `@**all**` after it.
 */
const plain = inline;

/** Cuts text to `max` code points, ending with an ellipsis when cut. */
function cut(text: string, max: number): string {
  const chars = [...text];
  return chars.length <= max
    ? text
    : `${chars
        .slice(0, max - 1)
        .join("")
        .trimEnd()}…`;
}

const firstLine = (text: string): string => text.split(/\r?\n/)[0]!.trim();
const who = (payload: Json): string => `**${plain(str(obj(payload.sender).login) || "someone")}**`;
const repoName = (payload: Json): string => str(obj(payload.repository).name) || "github";

/** `widgets / PR #42 Support currencies…`, within the topic length limit. */
const itemTopic = (payload: Json, kind: string, number: unknown, title: string): string =>
  cut(`${repoName(payload)} / ${kind} #${String(number)} ${title}`, MAX_TOPIC);

/**
 * A short quote of a description (its first paragraph, at most 200 characters), kept as Markdown
 * but with mentions (`@**all**`, `@_**name**`, `@*group*`) made inert and a fence no line can close.
 */
function excerpt(body: string): string {
  const first =
    body
      .trim()
      .split(/\r?\n\s*\r?\n/)[0]
      ?.trim() ?? "";
  if (!first) return "";
  return `\n${codeBlock(cut(first.replace(/\r/g, ""), 200), "quote")}`;
}

function renderPush(p: Json): GithubMessage | undefined {
  const ref = str(p.ref);
  const tag = ref.startsWith("refs/tags/");
  const name = ref.replace(/^refs\/(heads|tags)\//, "");
  const topic = cut(repoName(p), MAX_TOPIC);
  const thing = `${tag ? "tag" : "branch"} ${code(name)}`;
  if (p.deleted === true) return { topic, content: `${who(p)} deleted ${thing}.` };
  const commits = Array.isArray(p.commits) ? p.commits.map(obj) : [];
  if (tag || (p.created === true && commits.length === 0))
    return { topic, content: `${who(p)} pushed ${tag ? "" : "new "}${thing}.` };
  if (commits.length === 0) return undefined;
  const n = commits.length;
  const pushed = link(`pushed ${n} commit${n === 1 ? "" : "s"}`, str(p.compare));
  const lines = commits
    .slice(0, MAX_COMMITS)
    .map(
      (c) =>
        `* ${plain(cut(firstLine(str(c.message)), 100))} (${link(str(c.id).slice(0, 7), str(c.url))})`,
    );
  if (n > MAX_COMMITS) lines.push(`* … and ${n - MAX_COMMITS} more`);
  const forced = p.forced === true ? " (force-push)" : "";
  return { topic, content: `${who(p)} ${pushed} to ${code(name)}${forced}:\n${lines.join("\n")}` };
}

function renderPullRequest(p: Json): GithubMessage | undefined {
  const pr = obj(p.pull_request);
  const action = str(p.action);
  const title = str(pr.title);
  const ref = link(`PR #${String(pr.number)}`, str(pr.html_url));
  const topic = itemTopic(p, "PR", pr.number, title);
  const branches = `${code(str(obj(pr.head).ref))} → ${code(str(obj(pr.base).ref))}`;
  switch (action) {
    case "opened":
      return {
        topic,
        content: `${who(p)} opened ${pr.draft === true ? "draft " : ""}${ref} ${branches}: **${plain(title)}**${excerpt(str(pr.body))}`,
      };
    case "closed":
      return {
        topic,
        content:
          pr.merged === true
            ? `${who(p)} merged ${ref} into ${code(str(obj(pr.base).ref))}.`
            : `${who(p)} closed ${ref} without merging.`,
      };
    case "reopened":
      return { topic, content: `${who(p)} reopened ${ref}.` };
    case "ready_for_review":
      return { topic, content: `${who(p)} marked ${ref} ready for review.` };
    default:
      return undefined;
  }
}

function renderIssue(p: Json): GithubMessage | undefined {
  const issue = obj(p.issue);
  const action = str(p.action);
  const title = str(issue.title);
  const ref = link(`issue #${String(issue.number)}`, str(issue.html_url));
  const topic = itemTopic(p, "Issue", issue.number, title);
  switch (action) {
    case "opened":
      return {
        topic,
        content: `${who(p)} opened ${ref}: **${plain(title)}**${excerpt(str(issue.body))}`,
      };
    case "closed": {
      const reason = str(issue.state_reason) === "not_planned" ? " as not planned" : "";
      return { topic, content: `${who(p)} closed ${ref}${reason}.` };
    }
    case "reopened":
      return { topic, content: `${who(p)} reopened ${ref}.` };
    default:
      return undefined;
  }
}

function renderRelease(p: Json): GithubMessage | undefined {
  if (str(p.action) !== "published") return undefined;
  const release = obj(p.release);
  const tag = str(release.tag_name);
  const name = str(release.name);
  const kind = release.prerelease === true ? "pre-release" : "release";
  const titled = name && name !== tag ? `: ${plain(name)}` : "";
  return {
    topic: cut(repoName(p), MAX_TOPIC),
    content: `${who(p)} published ${kind} ${link(tag, str(release.html_url))}${titled}.`,
  };
}

const CONCLUSIONS: Record<string, string> = {
  success: ":check: succeeded",
  failure: ":cross_mark: failed",
  cancelled: ":stop_sign: was cancelled",
  timed_out: ":hourglass: timed out",
  action_required: ":warning: needs action",
  startup_failure: ":cross_mark: failed to start",
};

function renderWorkflowRun(p: Json): GithubMessage | undefined {
  if (str(p.action) !== "completed") return undefined;
  const run = obj(p.workflow_run);
  const conclusion = CONCLUSIONS[str(run.conclusion)];
  if (!conclusion) return undefined; // skipped, neutral, stale: nothing to say
  const name = plain(str(run.name) || str(obj(p.workflow).name) || "workflow");
  const runLink = link(`run #${String(run.run_number)}`, str(run.html_url));
  const title = str(run.display_title);
  return {
    topic: cut(repoName(p), MAX_TOPIC),
    content: `Workflow **${name}** ${conclusion} on ${code(str(run.head_branch))} (${runLink})${title ? `: ${plain(cut(firstLine(title), 100))}` : ""}.`,
  };
}

/**
 * Renders a GitHub webhook event as a topic and Markdown content; undefined for events and actions
 * not worth a message (e.g. a pull request's `synchronize`, a skipped workflow run).
 *
 * @example
 * renderGithubEvent("issues", payload);
 * // { topic: "widgets / Issue #40 Prices in yen…", content: "**alan-turing** opened [issue #40](…): …" }
 */
export function renderGithubEvent(eventName: string, payload: unknown): GithubMessage | undefined {
  const p = obj(payload);
  switch (eventName) {
    case "push":
      return renderPush(p);
    case "pull_request":
      return renderPullRequest(p);
    case "issues":
      return renderIssue(p);
    case "release":
      return renderRelease(p);
    case "workflow_run":
      return renderWorkflowRun(p);
    default:
      return undefined;
  }
}

export interface GithubRouteOptions {
  /** Route path on the receiver. Default `/github`. */
  path?: string;
  /** The webhook's secret, as set in the repository's webhook settings. */
  secret: string;
  /** Channel name or ID to post in. */
  channel: string | number;
  /** Events to post; default all of GITHUB_EVENTS. */
  events?: readonly string[];
  send: SendFn;
}

/**
 * The GitHub webhook route: checks `X-Hub-Signature-256`, renders the event, posts it.
 *
 * @example
 * receiver.mount(githubRoute({ secret: process.env.GITHUB_WEBHOOK_SECRET!, channel: "dev", send }));
 */
export function githubRoute(options: GithubRouteOptions): RouteDefinition {
  const events = new Set(options.events ?? GITHUB_EVENTS);
  return {
    path: options.path ?? "/github",
    options: { auth: { type: "github", secret: options.secret }, json: true },
    async handler({ headers, payload }) {
      const raw = headers["x-github-event"];
      const event = Array.isArray(raw) ? raw[0] : raw;
      if (!event) throw new WebhookError(400, "missing X-GitHub-Event header");
      if (event === "ping") return { ok: true, pong: true };
      const message = events.has(event) ? renderGithubEvent(event, payload) : undefined;
      if (!message) return { ok: true, ignored: event };
      await options.send({ to: options.channel, ...message });
      return { ok: true };
    },
  };
}

/** The plugin's settings (its section of `plugins:` in bot.config.yaml). */
export const githubSettings = z.strictObject({
  /** The webhook's secret, as set in the repository's webhook settings. */
  secret: z.string().min(8, "a secret needs at least 8 characters"),
  /** Channel name or ID to post in. */
  channel: z.union([z.string().min(1), z.number().int()]),
  /** Route path on the bot's webhook receiver. */
  path: z.string().default("/github"),
  /** Events to post; default all of GITHUB_EVENTS. */
  events: z.array(z.enum(GITHUB_EVENTS)).optional(),
});

/**
 * The `github` plugin: a route on the bot's webhook receiver that posts GitHub activity.
 *
 * @example
 * // bot.config.yaml
 * // plugins:
 * //   - github: { secret: "${GITHUB_WEBHOOK_SECRET}", channel: dev }
 */
export default definePlugin({
  name: "github",
  description: "Posts GitHub pushes, pull requests, issues, releases and workflow runs.",
  config: githubSettings,
  setup(bot, config) {
    const route = githubRoute({
      ...config,
      send: (post) => bot.api.messages.send({ type: "channel", ...post }),
    });
    bot.webhook(route.path, route.options, route.handler);
  },
});

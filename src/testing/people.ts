// Who a test speaks as and where: seeded or created users, and channels created when first used.
import { ROLES, type RoleName } from "../api/common.js";
import { createClient, type ApiClient } from "../client/client.js";

/** The client name the sandbox records for messages a test sends (as anyone, the bot included). */
export const HARNESS_CLIENT = "topicbot-test-harness";
import type { Sandbox, SandboxAccount } from "../sandbox/server.js";
import { notifyActiveUsers } from "../sandbox/notify.js";

/** A user to add to the sandbox for a test. */
export interface NewUser {
  /** The handle tests speak as (`as: "zoe"`); also the email's local part. */
  handle: string;
  /** Default: the handle, capitalised. */
  fullName?: string;
  /** Default `member`. */
  role?: RoleName;
  /** IANA time zone of the profile (what `tomorrow 9:00` is read in). Default UTC. */
  timezone?: string;
}

/** The realm's people and channels for one harness: seeded users, created users, channels on demand. */
export class People {
  readonly #sandbox: Sandbox;
  readonly #created = new Map<string, SandboxAccount>();
  readonly #channels = new Map<string, Promise<void>>();
  readonly #clients = new Map<string, ApiClient>();

  constructor(sandbox: Sandbox) {
    this.#sandbox = sandbox;
  }

  /** A client logged in as `handle` (one per user, reused; closed by `close()`). */
  client(handle: string): ApiClient {
    let client = this.#clients.get(handle);
    if (!client) {
      const account = this.account(handle);
      client = createClient({
        site: this.#sandbox.url,
        email: account.email,
        apiKey: account.apiKey,
        // Marks what a test sends, so a message sent as the bot is not taken for its reply.
        userAgent: `${HARNESS_CLIENT}/1`,
      });
      this.#clients.set(handle, client);
    }
    return client;
  }

  /** Closes every client `client()` made. */
  async close(): Promise<void> {
    await Promise.all([...this.#clients.values()].map((c) => c.close()));
    this.#clients.clear();
  }

  /** The owner's client: creating users and channels needs an administrator. */
  #admin(): ApiClient {
    return this.client("olivia");
  }

  /** A seeded (`olivia`, `adam`, `max`, `mia`, `gus`, `bot`) or created user, by handle. */
  account(handle: string): SandboxAccount {
    const created = this.#created.get(handle);
    if (created) return created;
    if (this.#sandbox.users.some((u) => u.handle === handle)) return this.#sandbox.user(handle);
    const known = [...this.#sandbox.users.map((u) => u.handle), ...this.#created.keys()];
    throw new Error(
      `no sandbox user "${handle}"; known: ${known.join(", ")} (add one with t.createUser({ handle: "${handle}" }))`,
    );
  }

  /** Every human and the bot: the seeded accounts, then the created ones. */
  all(): SandboxAccount[] {
    return [...this.#sandbox.users, ...this.#created.values()];
  }

  /** Creates a user through the server's API (as the owner), so the bot hears of it as of any other. */
  async create(init: NewUser): Promise<SandboxAccount> {
    if (!/^[a-z][a-z0-9._-]*$/i.test(init.handle))
      throw new Error(
        `createUser: handle "${init.handle}" must be a word (letters, digits, . _ -)`,
      );
    if (this.#created.has(init.handle) || this.#sandbox.users.some((u) => u.handle === init.handle))
      throw new Error(`createUser: there is already a user "${init.handle}"`);
    const realm = this.#sandbox.realm;
    const fullName = init.fullName ?? init.handle[0]!.toUpperCase() + init.handle.slice(1);
    const email = `${init.handle}@${realm.settings.host}`;
    const password = `pw-${init.handle}-${Math.random().toString(36).slice(2)}`;
    const { user_id } = await this.#admin().users.create({ email, password, full_name: fullName });
    const user = realm.users.get(user_id)!;
    const role = ROLES[init.role ?? "member"];
    if (role === undefined) throw new Error(`createUser: unknown role "${init.role}"`);
    // As the server would, each change is announced (`realm_user` update): bots keep the users
    // they know current from these events.
    const announce = (person: Record<string, unknown>) =>
      notifyActiveUsers(realm, () => ({
        type: "realm_user",
        op: "update",
        person: { user_id, ...person },
      }));
    if (user.role !== role) {
      user.role = role;
      announce({ role });
    }
    if (init.timezone) {
      user.timezone = init.timezone;
      announce({ timezone: init.timezone });
    }
    for (const channel of realm.channels.values())
      if (!channel.inviteOnly && channel.subscribers.has(this.#sandbox.bot.userId))
        realm.subscribe(channel, user.userId);
    const account: SandboxAccount = {
      handle: init.handle,
      userId: user.userId,
      email,
      apiKey: user.apiKey,
      password,
      fullName,
      role: user.role,
      isBot: false,
    };
    this.#created.set(init.handle, account);
    return account;
  }

  /**
   * Makes sure channel `name` exists, creating it through the API with every user (the bot
   * included) subscribed, as a team's channel would be.
   */
  async channel(name: string): Promise<void> {
    const key = name.toLowerCase();
    if (this.#sandbox.realm.channelByName(name)) return;
    let pending = this.#channels.get(key);
    if (!pending) {
      pending = this.#admin()
        .subscriptions.add({
          subscriptions: [{ name }],
          principals: this.all().map((u) => u.userId),
        })
        .then(() => undefined);
      this.#channels.set(key, pending);
    }
    await pending;
  }
}

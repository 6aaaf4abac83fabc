// The contract suite's server selection: the sandbox always, a real server only from complete TOPICBOT_CONTRACT_* settings.
import { describe, expect, it } from "vitest";
import { contractServers, realServer, sandboxServer, SANDBOX_HANDLES } from "./servers.js";

const REAL = {
  TOPICBOT_CONTRACT_SITE: "http://127.0.0.1:9",
  TOPICBOT_CONTRACT_EMAIL: "admin@example.test",
  TOPICBOT_CONTRACT_API_KEY: "k1",
};

describe("contract servers", () => {
  it("is the sandbox alone without a complete real-server configuration", () => {
    expect(contractServers({})).toEqual([sandboxServer]);
    expect(contractServers({ ...REAL, TOPICBOT_CONTRACT_API_KEY: "" })).toEqual([sandboxServer]);
  });

  it("adds a real server whose main account has TOPICBOT_CONTRACT_ROLE (admin by default)", async () => {
    const factories = contractServers({
      ...REAL,
      TOPICBOT_CONTRACT_MEMBER_EMAIL: "m@example.test",
      TOPICBOT_CONTRACT_MEMBER_API_KEY: "k2",
    });
    expect(factories.map((f) => f.name)).toEqual(["sandbox", "real server http://127.0.0.1:9"]);
    const server = await factories[1]!.start();
    try {
      expect(server.main).toBe("admin");
      expect(server.sandbox).toBeUndefined();
      expect(server.writable).toBe(false);
      expect(server.account("admin")).toEqual({ email: "admin@example.test", apiKey: "k1" });
      expect(server.account("member")).toEqual({ email: "m@example.test", apiKey: "k2" });
      expect(server.account("owner")).toBeUndefined();
      expect(() => server.client("owner")).toThrow(/no owner account/);
      expect(server.client()).toBe(server.client("admin"));
    } finally {
      await server.close();
    }
  });

  it("takes the main role and writability from the environment, and refuses an unknown role", async () => {
    const server = await realServer({
      ...REAL,
      TOPICBOT_CONTRACT_ROLE: "bot",
      TOPICBOT_CONTRACT_WRITABLE: "1",
    })!.start();
    expect([server.main, server.writable]).toEqual(["bot", true]);
    await server.close();
    expect(() => realServer({ ...REAL, TOPICBOT_CONTRACT_ROLE: "king" })).toThrow(
      /TOPICBOT_CONTRACT_ROLE/,
    );
  });

  it("starts the sandbox with every role's seeded account and the bot as the main account", async () => {
    const server = await sandboxServer.start();
    try {
      expect(server.main).toBe("bot");
      for (const [role, handle] of Object.entries(SANDBOX_HANDLES))
        expect(server.account(role as keyof typeof SANDBOX_HANDLES)?.email).toBe(
          server.sandbox!.user(handle).email,
        );
      expect((await server.client().users.me()).user_id).toBe(server.sandbox!.bot.userId);
    } finally {
      await server.close();
    }
  });
});

// The cluster's Redis address: redis+sentinel:// URLs parsed for ioredis, and `--cluster` over `cluster.redis`.
import { describe, expect, it } from "vitest";
import { clusterRedis } from "../../src/cli/cluster-storage.js";
import { ConfigError } from "../../src/config/errors.js";
import { parseSentinelUrl, redact, redisTarget, sentinelUrl } from "../../src/state/redis-url.js";

describe("redis+sentinel:// URLs", () => {
  it("reads sentinels, the primary's name, the database and passwords", () => {
    expect(
      parseSentinelUrl(
        "redis+sentinel://:pa%40ss@10.0.0.5:26379,10.0.0.6,[::1]:26380/cache/2?sentinelPassword=s1",
      ),
    ).toEqual({
      sentinels: [
        { host: "10.0.0.5", port: 26379 },
        { host: "10.0.0.6", port: 26379 },
        { host: "::1", port: 26380 },
      ],
      name: "cache",
      db: 2,
      password: "pa@ss",
      sentinelPassword: "s1",
    });
    expect(parseSentinelUrl("redis+sentinel://127.0.0.1:1").name).toBe("mymaster");
  });

  it("round-trips a spelled-out set through its URL, and gives ioredis Sentinel options", () => {
    const set = {
      sentinels: [
        { host: "a", port: 1 },
        { host: "b", port: 2 },
      ],
      name: "m",
      db: 1,
    };
    expect(parseSentinelUrl(sentinelUrl(set))).toEqual(set);
    expect(redisTarget(sentinelUrl(set))).toEqual({ options: set });
    expect(redisTarget("redis://127.0.0.1:6379/0")).toEqual({ url: "redis://127.0.0.1:6379/0" });
  });

  it("refuses a bad address, naming it, without the password", () => {
    expect(() => parseSentinelUrl("redis+sentinel://:secret@host:99999/m")).toThrow(
      /bad sentinel address "host:99999" in redis\+sentinel:\/\/:\*\*\*@host/,
    );
    expect(() => parseSentinelUrl("redis+sentinel:///m")).toThrow(/no sentinel address/);
    expect(redact("redis://u:secret@h:1/0")).toBe("redis://u:***@h:1/0");
  });
});

describe("the cluster's Redis: --cluster over cluster.redis", () => {
  const file = "bot.config.yaml";
  it("takes the flag over the config key, and accepts a cluster section without redis when the flag gives it", () => {
    expect(clusterRedis("redis://flag:1/0", { redis: "redis://config:1/0" }, file)).toBe(
      "redis://flag:1/0",
    );
    expect(clusterRedis("redis://flag:1/0", { partitions: 8 }, file)).toBe("redis://flag:1/0");
    expect(clusterRedis(undefined, { redis: "redis://config:1/0" }, file)).toBe(
      "redis://config:1/0",
    );
    expect(clusterRedis(undefined, undefined, file)).toBeUndefined();
  });

  it("turns a spelled-out Sentinel set into its URL", () => {
    expect(
      clusterRedis(
        undefined,
        { redis: { sentinels: ["10.0.0.5:26379", { host: "h" }], name: "m" } },
        file,
      ),
    ).toBe("redis+sentinel://10.0.0.5:26379,h:26379/m");
  });

  it("says what is missing or wrong, naming the key or the flag", () => {
    expect(() => clusterRedis(undefined, { partitions: 8 }, file)).toThrow(
      new ConfigError(
        file,
        "cluster.redis",
        "required: the cluster's Redis URL (or give it with --cluster <redis-url>)",
      ),
    );
    expect(() => clusterRedis("localhost:6379", undefined, file)).toThrow(
      /command line: --cluster: expected a Redis URL/,
    );
    expect(() => clusterRedis(undefined, { redis: "redis+sentinel://h:0/m" }, file)).toThrow(
      /bot\.config\.yaml: cluster\.redis: bad sentinel address "h:0"/,
    );
  });
});

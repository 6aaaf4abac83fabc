// Test helper: a loopback TCP proxy the test can pause (no byte passes either way, nothing is refused), to cut one process off from a server.
import { once } from "node:events";
import { connect, createServer, type Socket } from "node:net";

export interface TcpProxy {
  port: number;
  /** Stops relaying in both directions; new connections are accepted and held. The peers see silence, not an error. */
  pause(): void;
  /** Relays again: what was held flows on. */
  resume(): void;
  close(): Promise<void>;
}

/** A proxy on a free loopback port to `127.0.0.1:targetPort`. */
export async function startTcpProxy(targetPort: number): Promise<TcpProxy> {
  let paused = false;
  /** Each direction of each connection: where it writes, and what is held while paused. */
  const links = new Set<{ to: Socket; held: Buffer[] }>();
  const sockets = new Set<Socket>();
  const relay = (from: Socket, to: Socket) => {
    const link = { to, held: [] as Buffer[] };
    links.add(link);
    from.on("data", (chunk: Buffer) => (paused ? link.held.push(chunk) : to.write(chunk)));
    from.on("close", () => links.delete(link));
  };
  const server = createServer((client) => {
    const upstream = connect(targetPort, "127.0.0.1");
    for (const s of [client, upstream]) sockets.add(s);
    relay(client, upstream);
    relay(upstream, client);
    const end = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on("error", end).on("close", end);
    upstream.on("error", end).on("close", end);
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as { port: number };
  return {
    port,
    pause() {
      paused = true;
    },
    resume() {
      paused = false;
      for (const link of links) {
        for (const chunk of link.held) link.to.write(chunk);
        link.held = [];
      }
    },
    async close() {
      for (const s of sockets) s.destroy();
      server.close();
      await once(server, "close");
    },
  };
}

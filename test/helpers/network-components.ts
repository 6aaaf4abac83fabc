// Test helpers: a real tinyproxy and a real nginx (TLS, with a CA made by openssl) on free loopback ports.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { chmod, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";

/** A free loopback port. */
export async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as { port: number };
  server.close();
  await once(server, "close");
  return port;
}

/**
 * Runs `start` on free ports, again on new ones (up to 5 times) when the server could not bind:
 * between `freePort()` closing its probe and the server binding, another test may take the port.
 */
async function onFreePorts<T>(
  count: number,
  start: (ports: number[]) => Promise<T>,
  bindFailed: (error: Error) => boolean,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    const ports: number[] = [];
    for (let i = 0; i < count; i++) ports.push(await freePort());
    try {
      return await start(ports);
    } catch (error) {
      if (attempt >= 5 || !(error instanceof Error) || !bindFailed(error)) throw error;
    }
  }
}

/** Fails saying what to install when `command` is not there. */
function need(command: string, args: string[], pkg: string): void {
  if (spawnSync(command, args).error)
    throw new Error(
      `${command} is not installed: the deployment tests need it (apt-get install -y ${pkg}, or bash scripts/system-deps.sh)`,
    );
}

/** Waits until something listens on the port (bounded). */
async function listening(port: number, child: ChildProcess, what: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (child.exitCode !== null) throw new Error(`${what} exited with code ${child.exitCode}`);
    const ok = await new Promise<boolean>((resolve) => {
      const socket = createServer().listen(port, "127.0.0.1");
      socket.once("error", () => resolve(true));
      socket.once("listening", () => socket.close(() => resolve(false)));
    });
    if (ok) return;
    await sleep(50);
  }
  throw new Error(`${what} did not listen on ${port} within 10 s`);
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, "exit");
  child.kill("SIGTERM");
  await Promise.race([exited, sleep(5_000).then(() => child.kill("SIGKILL"))]);
}

export interface TestProxy {
  url: string;
  port: number;
  /** Connections the proxy has opened to a server so far (one per tunnel: CONNECT), from its log. */
  requests(): Promise<number>;
  /** Its log (request lines such as `CONNECT host:port`). */
  log(): Promise<string>;
  close(): Promise<void>;
}

/** Starts tinyproxy in the foreground on a free loopback port, allowing loopback clients only. */
export async function startTinyproxy(
  options: { basicAuth?: [string, string] } = {},
): Promise<TestProxy> {
  need("tinyproxy", ["-v"], "tinyproxy");
  return onFreePorts(
    1,
    ([port]) => tinyproxyOn(port!, options),
    (error) => error.message.includes("Could not create listening sockets"),
  );
}

async function tinyproxyOn(
  port: number,
  options: { basicAuth?: [string, string] },
): Promise<TestProxy> {
  const dir = await mkdtemp(join(tmpdir(), "topicbot-tinyproxy-"));
  const logFile = join(dir, "tinyproxy.log");
  const conf = [
    `Port ${port}`,
    "Listen 127.0.0.1",
    "Timeout 600",
    `LogFile "${logFile}"`,
    "LogLevel Connect",
    "MaxClients 100",
    "Allow 127.0.0.1",
    "DisableViaHeader Yes",
    ...(options.basicAuth ? [`BasicAuth ${options.basicAuth[0]} ${options.basicAuth[1]}`] : []),
    ...(process.getuid?.() === 0 ? ["User nobody", "Group nogroup"] : []),
  ].join("\n");
  await writeFile(join(dir, "tinyproxy.conf"), conf);
  await writeFile(logFile, "");
  // tinyproxy drops root for nobody, which must still write its log.
  await chmod(dir, 0o755);
  await chmod(logFile, 0o666);
  const child = spawn("tinyproxy", ["-d", "-c", join(dir, "tinyproxy.conf")], {
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  try {
    await listening(port, child, "tinyproxy");
  } catch (error) {
    await stop(child);
    await rm(dir, { recursive: true, force: true });
    throw new Error(`${(error as Error).message}: ${stderr}`);
  }
  const log = () => readFile(logFile, "utf8");
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    log,
    async requests() {
      return ((await log()).match(/Established connection to host/g) ?? []).length;
    },
    async close() {
      await stop(child);
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** A private CA and certificates made by openssl in a temporary directory. */
export interface TestPki {
  dir: string;
  /** The CA's certificate (PEM file). */
  ca: string;
  /** The server's certificate and key, for 127.0.0.1 and localhost. */
  serverCert: string;
  serverKey: string;
  /** A client certificate and key signed by the CA. */
  clientCert: string;
  clientKey: string;
  /** A client certificate signed by another CA (which the server does not trust). */
  strangerCert: string;
  strangerKey: string;
  close(): Promise<void>;
}

function openssl(args: string[], cwd: string): void {
  const result = spawnSync("openssl", args, { cwd, encoding: "utf8" });
  if (result.status !== 0) throw new Error(`openssl ${args.join(" ")} failed: ${result.stderr}`);
}

/** Makes a CA, a server certificate for 127.0.0.1 and two client certificates (one from another CA). */
export async function makePki(): Promise<TestPki> {
  need("openssl", ["version"], "openssl");
  const dir = await mkdtemp(join(tmpdir(), "topicbot-pki-"));
  const ca = (name: string) => {
    openssl(
      [
        "req",
        "-x509",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-days",
        "2",
        "-subj",
        `/CN=${name}`,
        "-keyout",
        `${name}.key`,
        "-out",
        `${name}.pem`,
        "-addext",
        "basicConstraints=critical,CA:TRUE",
        "-addext",
        "keyUsage=critical,keyCertSign,cRLSign",
      ],
      dir,
    );
  };
  const leaf = (name: string, caName: string, ext: string) => {
    openssl(
      [
        "req",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-subj",
        `/CN=${name}`,
        "-keyout",
        `${name}.key`,
        "-out",
        `${name}.csr`,
      ],
      dir,
    );
    spawnSync("sh", ["-c", `printf '%s\\n' '${ext}' > ${name}.ext`], { cwd: dir });
    openssl(
      [
        "x509",
        "-req",
        "-in",
        `${name}.csr`,
        "-CA",
        `${caName}.pem`,
        "-CAkey",
        `${caName}.key`,
        "-CAcreateserial",
        "-days",
        "2",
        "-out",
        `${name}.pem`,
        "-extfile",
        `${name}.ext`,
      ],
      dir,
    );
  };
  ca("test-ca");
  ca("other-ca");
  leaf("server", "test-ca", "subjectAltName=IP:127.0.0.1,DNS:localhost");
  leaf("client", "test-ca", "extendedKeyUsage=clientAuth");
  leaf("stranger", "other-ca", "extendedKeyUsage=clientAuth");
  return {
    dir,
    ca: join(dir, "test-ca.pem"),
    serverCert: join(dir, "server.pem"),
    serverKey: join(dir, "server.key"),
    clientCert: join(dir, "client.pem"),
    clientKey: join(dir, "client.key"),
    strangerCert: join(dir, "stranger.pem"),
    strangerKey: join(dir, "stranger.key"),
    close: () => rm(dir, { recursive: true, force: true }),
  };
}

export interface TestNginx {
  /** `https://127.0.0.1:<port>`: TLS with the PKI's server certificate. */
  site: string;
  /** The same, requiring a client certificate signed by the PKI's CA. */
  clientCertSite: string;
  close(): Promise<void>;
}

/**
 * Starts nginx in the foreground (`daemon off`) with two TLS servers proxying to `upstream`: one
 * plain, one with `ssl_verify_client on`. `readTimeoutSeconds` is `proxy_read_timeout` (nginx's
 * default is 60), to test long polls cut by a proxy.
 */
export async function startNginx(
  pki: TestPki,
  upstream: string,
  options: { readTimeoutSeconds?: number } = {},
): Promise<TestNginx> {
  need("nginx", ["-v"], "nginx");
  return onFreePorts(
    2,
    ([port, clientPort]) => nginxOn(port!, clientPort!, pki, upstream, options),
    (error) => error.message.includes("Address already in use"),
  );
}

async function nginxOn(
  port: number,
  clientPort: number,
  pki: TestPki,
  upstream: string,
  options: { readTimeoutSeconds?: number },
): Promise<TestNginx> {
  const dir = await mkdtemp(join(tmpdir(), "topicbot-nginx-"));
  const location = `
      location / {
        proxy_pass ${upstream};
        proxy_http_version 1.1;
        proxy_set_header Connection "";
        proxy_buffering off;
        proxy_read_timeout ${options.readTimeoutSeconds ?? 60}s;
      }`;
  const conf = `
worker_processes 1;
daemon off;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 256; }
http {
  access_log ${dir}/access.log;
  client_body_temp_path ${dir}/body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
  server {
    listen 127.0.0.1:${port} ssl;
    ssl_certificate ${pki.serverCert};
    ssl_certificate_key ${pki.serverKey};
    ${location}
  }
  server {
    listen 127.0.0.1:${clientPort} ssl;
    ssl_certificate ${pki.serverCert};
    ssl_certificate_key ${pki.serverKey};
    ssl_client_certificate ${pki.ca};
    ssl_verify_client on;
    ${location}
  }
}
`;
  await writeFile(join(dir, "nginx.conf"), conf);
  const child = spawn(
    "nginx",
    ["-c", join(dir, "nginx.conf"), "-p", dir, "-e", join(dir, "error.log")],
    {
      stdio: ["ignore", "ignore", "pipe"],
    },
  );
  let stderr = "";
  child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  try {
    await listening(port, child, "nginx");
    await listening(clientPort, child, "nginx");
  } catch (error) {
    const log = await readFile(join(dir, "error.log"), "utf8").catch(() => "");
    await stop(child);
    await rm(dir, { recursive: true, force: true });
    throw new Error(`${(error as Error).message}: ${stderr} ${log}`);
  }
  return {
    site: `https://127.0.0.1:${port}`,
    clientCertSite: `https://127.0.0.1:${clientPort}`,
    async close() {
      await stop(child);
      await rm(dir, { recursive: true, force: true });
    },
  };
}

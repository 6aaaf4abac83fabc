// `bot sandbox`: run the embedded server on its own, for other programs and for manual testing.
import { startSandbox, type Sandbox } from "../../sandbox/server.js";
import type { Output } from "../output.js";

export interface SandboxCommandOptions {
  port: number;
  host: string;
  json: boolean;
}

/** One JSON line describing a running sandbox, as `bot sandbox --json` prints it. */
export function sandboxDescription(sandbox: Sandbox): string {
  return JSON.stringify({
    url: sandbox.url,
    users: sandbox.users.map((u) => ({
      userId: u.userId,
      email: u.email,
      apiKey: u.apiKey,
      password: u.password,
      fullName: u.fullName,
      role: u.role,
      isBot: u.isBot,
    })),
  });
}

export async function runSandbox(options: SandboxCommandOptions, out: Output): Promise<void> {
  const sandbox = await startSandbox({ port: options.port, host: options.host });
  if (options.json) {
    out.stdout(sandboxDescription(sandbox));
  } else {
    out.stdout(`Sandbox server at ${sandbox.url} (API under ${sandbox.url}/api/v1). Accounts:`);
    for (const u of sandbox.users) {
      out.stdout(
        `  ${u.fullName.padEnd(14)} ${u.email.padEnd(24)} key ${u.apiKey}${u.password ? `  password ${u.password}` : ""}`,
      );
    }
    out.stdout("Stop with Ctrl-C.");
  }
  await new Promise<void>((resolve) => {
    const stop = (): void => resolve();
    process.once("SIGINT", stop);
    process.once("SIGTERM", stop);
  });
  await sandbox.close();
}

// `bot replay --diff <cassette>`: a cassette's requests replayed against the embedded sandbox, differences as Markdown.
import { writeFileSync } from "node:fs";
import { readCassette, CassetteError } from "../../record/cassette.js";
import { diffReport, replayDiff } from "../../record/diff.js";
import { recordedBot } from "../../record/seed.js";
import { startSandbox } from "../../sandbox/server.js";
import { ownPackage } from "../../own-files.js";
import type { Output } from "../output.js";

export interface ReplayCommandOptions {
  cassette: string;
  /** Write the report to this file instead of standard output. */
  out?: string;
}

/** Exit 0 when the sandbox answered as recorded, 1 when it differs, 2 for a cassette that cannot be read. */
export async function runReplay(options: ReplayCommandOptions, out: Output): Promise<number> {
  let cassette;
  try {
    cassette = readCassette(options.cassette);
  } catch (error) {
    if (!(error instanceof CassetteError)) throw error;
    out.stderr(`error: ${error.message}`);
    return 2;
  }
  const bot = recordedBot(cassette);
  const sandbox = await startSandbox({
    heartbeatSeconds: 1,
    bot: bot && { fullName: bot.fullName, email: bot.email },
  });
  try {
    const diff = await replayDiff({ cassette, sandbox });
    const report = diffReport(diff, cassette, options.cassette, ownPackage().version);
    if (options.out) {
      writeFileSync(options.out, report);
      out.stderr(
        `${diff.differences.length} difference(s) over ${diff.replayed} replayed request(s): ${options.out}`,
      );
    } else out.stdout(report);
    return diff.differences.length === 0 ? 0 : 1;
  } finally {
    await sandbox.close();
  }
}

// The recorder's own thread: sanitizes the exchanges the bot's thread sends it and writes them to the cassette.
import { parentPort, workerData } from "node:worker_threads";
import { CassetteLines, type CassetteLinesOptions } from "./cassette-lines.js";
import { decodeExchanges, type Wire } from "./exchange-wire.js";
import { CassetteWriter } from "./writer.js";

/** What the recorder starts its thread with (`workerData`). */
export interface RecorderThreadData {
  lines: CassetteLinesOptions;
  path: string;
  maxBytes?: number;
  keep?: number;
}

/** From the bot's thread: exchanges to write, or a request to be told once all is on disk. */
export type ToRecorderThread =
  | { type: "exchanges"; exchanges: Wire }
  | { type: "flush"; id: number }
  | { type: "close"; id: number };

/** To the bot's thread: a batch written, a flush or close done, or the recording stopped on an error. */
export type FromRecorderThread =
  | { type: "written"; exchanges: number }
  | { type: "done"; id: number }
  | { type: "failed"; message: string; code?: string };

const port = parentPort;
if (!port) throw new Error("recorder-thread.ts runs as a worker thread of the recorder");
const data = workerData as RecorderThreadData;
const cassette = new CassetteLines(data.lines);
let failed = false;
const fail = (error: unknown): void => {
  if (failed) return;
  failed = true;
  const e = error as NodeJS.ErrnoException;
  port.postMessage({
    type: "failed",
    message: e instanceof Error ? e.message : String(error),
    ...(typeof e?.code === "string" && { code: e.code }),
  } satisfies FromRecorderThread);
};
const writer = new CassetteWriter<string>({
  path: data.path,
  maxBytes: data.maxBytes,
  keep: data.keep,
  onError: fail,
  format: (lines) => cassette.format(lines),
  preamble: () => cassette.preamble(),
});

port.on("message", (message: ToRecorderThread) => {
  if (message.type === "exchanges") {
    if (failed) return;
    const lines: string[] = [];
    const records = decodeExchanges(message.exchanges);
    try {
      for (const record of records) for (const line of cassette.linesOf(record)) lines.push(line);
    } catch (error) {
      fail(error);
      return;
    }
    writer.write(lines);
    // What the bot's thread counts as waiting for the disk (the recorder's MAX_UNWRITTEN).
    port.postMessage({ type: "written", exchanges: records.length } satisfies FromRecorderThread);
    return;
  }
  // Every batch before this message is written (synchronously) by now.
  if (message.type === "close") writer.close();
  port.postMessage({ type: "done", id: message.id } satisfies FromRecorderThread);
  if (message.type === "close") port.close();
});

// The recorder's thread run from the sources (tests, tsx): registers tsx in the thread, which a worker does not inherit on Node 20, then runs recorder-thread.ts.
import { register } from "tsx/esm/api";

register();
await import("./recorder-thread.ts");

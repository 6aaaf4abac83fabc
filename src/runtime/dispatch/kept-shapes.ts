// Keeps one instance of each short-lived class of the dispatch path reachable, so that a full
// garbage collection does not throw away the path's optimized code.

/**
 * The latest instance made of each class that lives for one message (or one lane), one slot per
 * class. Why: V8 reaches the hidden class (map) an instance has once its fields are set only
 * through a weak transition from its constructor's initial map. When no instance is alive at a
 * full collection (a bot waiting for its next poll, V8's memory reducer once it is idle, or a
 * benchmark's `gc()` between rounds), that map dies, and every optimized function that embedded
 * it is thrown away ("weak objects" in `--trace-deopt`) and compiled again on the next messages:
 * about twenty functions of the dispatch path each time, where a lean pipeline built from object
 * literals (whose maps their literal holds) loses none. A live instance keeps its map, so the
 * code survives. The cost is one store per instance and one message of memory per class.
 * `test/unit/kept-shapes.test.ts` checks that a full collection leaves the path's code alone.
 */
export const keptShapes: {
  claim: object | undefined;
  turn: object | undefined;
  release: object | undefined;
  context: object | undefined;
  argEnv: object | undefined;
  fifo: object | undefined;
} = {
  claim: undefined,
  turn: undefined,
  release: undefined,
  context: undefined,
  argEnv: undefined,
  fifo: undefined,
};

// The shape of a JSON answer: its key paths and the types found at each, to compare two answers without their values.

/** Key path → the types seen there, e.g. `messages[].id` → `number`. */
export type Shape = Map<string, Set<string>>;

/** Keys that are IDs, emails or other data rather than field names (an object used as a map). */
const DATA_KEY = /^(?:-?\d+|[^@\s]+@[^@\s]+)$/;

function typeOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  return typeof value;
}

/**
 * Every key path of `value` with the types found there. Array elements share the path `a[]`
 * (their shapes merged); an object whose keys are all IDs or emails shares `a{}` likewise.
 * `nonEmpty` collects the paths of arrays and maps that had an element, so that element paths
 * are compared only where both sides had some.
 */
export function shapeOf(value: unknown, nonEmpty: Set<string> = new Set()): Shape {
  const shape: Shape = new Map();
  const add = (path: string, type: string): void => {
    let types = shape.get(path);
    if (!types) shape.set(path, (types = new Set()));
    types.add(type);
  };
  const walk = (v: unknown, path: string): void => {
    const type = typeOf(v);
    add(path, type);
    if (type === "array") {
      const items = v as unknown[];
      if (items.length > 0) nonEmpty.add(path);
      for (const item of items) walk(item, `${path}[]`);
    } else if (type === "object") {
      const keys = Object.keys(v as object);
      if (keys.length > 0 && keys.every((k) => DATA_KEY.test(k))) {
        nonEmpty.add(`${path}{}`);
        for (const k of keys) walk((v as Record<string, unknown>)[k], `${path}{}`);
      } else
        for (const k of keys) walk((v as Record<string, unknown>)[k], path ? `${path}.${k}` : k);
    }
  };
  walk(value, "");
  return shape;
}

/** One way two shapes differ. */
export interface ShapeDifference {
  kind: "missing key" | "new key" | "type";
  path: string;
  recorded: string;
  replayed: string;
}

const types = (set: Set<string> | undefined): string => (set ? [...set].sort().join(" | ") : "—");

/** Types differ, `null` aside: a value null on one side says nothing of its type. */
function differentTypes(a: Set<string>, b: Set<string>): boolean {
  const strip = (set: Set<string>): string[] => [...set].filter((t) => t !== "null").sort();
  const sa = strip(a);
  const sb = strip(b);
  if (sa.length === 0 || sb.length === 0) return false;
  return sa.join() !== sb.join();
}

/** The innermost `[]` or `{}` container a path lies in, if any. */
function containers(path: string): string[] {
  const out: string[] = [];
  const re = /\[\]|\{\}/g;
  let m: RegExpExecArray | null;
  while ((m = re.exec(path))) out.push(path.slice(0, m.index + 2));
  return out;
}

/**
 * How `replayed` differs from `recorded`: keys one has and the other not, and types that differ.
 * A path inside an array (or map) is compared only when both sides had elements there; a key
 * missing under one whose parent is missing too is reported once, at the parent.
 */
export function compareShapes(recorded: unknown, replayed: unknown): ShapeDifference[] {
  const recordedFull = new Set<string>();
  const replayedFull = new Set<string>();
  const a = shapeOf(recorded, recordedFull);
  const b = shapeOf(replayed, replayedFull);
  const comparable = (path: string): boolean =>
    containers(path).every((c) => {
      const parent = c.slice(0, -2);
      const key = c.endsWith("{}") ? c : parent;
      return recordedFull.has(key) && replayedFull.has(key);
    });
  const out: ShapeDifference[] = [];
  const reported: string[] = [];
  const under = (path: string): boolean =>
    reported.some(
      (p) => path.startsWith(`${p}.`) || path.startsWith(`${p}[]`) || path.startsWith(`${p}{}`),
    );
  for (const path of new Set([...a.keys(), ...b.keys()])) {
    if (path === "" || !comparable(path) || under(path)) continue;
    const ta = a.get(path);
    const tb = b.get(path);
    if (!tb || !ta) {
      out.push({
        kind: tb ? "new key" : "missing key",
        path,
        recorded: types(ta),
        replayed: types(tb),
      });
      reported.push(path);
    } else if (differentTypes(ta, tb)) {
      out.push({ kind: "type", path, recorded: types(ta), replayed: types(tb) });
    }
  }
  return out;
}

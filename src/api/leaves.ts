// One instance of each leaf schema that many wire fields share (`str`, `int`, `bool` and their optional forms).
//
// Why (issue 17, start-up): zod 4 builds every schema when its module loads, each with dozens of
// closures, and `bot start` loads every wire schema (`topicbot/client` exports them all). Some 370
// fields are a plain string, integer or boolean, optional or not: built one per field they were
// ~500 of the ~770 schemas importing src/api built. A zod schema is immutable (every method
// returns a new schema), so one instance serves every field alike: each accepts, reports and
// converts to JSON Schema exactly as a schema of its own (test/unit/schemas-at-import.test.ts).
// Only leaves used as they are share an instance; a field with checks or a description builds its own.
import { z } from "zod";

export const str = z.string();
export const int = z.int();
export const bool = z.boolean();
export const optStr = str.optional();
export const optInt = int.optional();
export const optBool = bool.optional();
/** An integer that may be null (a time limit: null is none) and may be absent. */
export const optNullInt = int.nullable().optional();

// Reads of several domains sent to D1 as one batch: a page that needs them all makes one round trip
// instead of one per read. Each domain hands over its statements, not yet run, and how to make its
// answer from their rows; the page's loader puts the reads together.
import type { BatchItem } from "drizzle-orm/batch";
import type { Db } from "./client.server";

type Statement = BatchItem<"sqlite">;

/** A domain's read, not yet run: its statements, and its answer made from their rows. */
export interface Read<T> {
  statements: Statement[];
  answer(rows: unknown[]): T;
}

type Rows<S extends readonly Statement[]> = { [K in keyof S]: Awaited<S[K]> };
type Answers<R extends readonly Read<unknown>[]> = { [K in keyof R]: R[K] extends Read<infer T> ? T : never };

/** A read of `statements`, answered by `answer` from their rows (in the same order). */
export function read<const S extends readonly Statement[], T>(statements: S, answer: (rows: Rows<S>) => T): Read<T> {
  return { statements: [...statements], answer: (rows) => answer(rows as Rows<S>) };
}

/** Runs every read's statements as one batch (one round trip) and answers each read, in order. */
export async function readTogether<const R extends readonly Read<unknown>[]>(db: Db, reads: R): Promise<Answers<R>> {
  const statements = reads.flatMap((r) => r.statements);
  const [first, ...rest] = statements;
  const rows: unknown[] = first ? await db.batch([first, ...rest]) : [];
  let at = 0;
  return reads.map((r) => {
    const mine = rows.slice(at, at + r.statements.length);
    at += r.statements.length;
    return r.answer(mine);
  }) as Answers<R>;
}

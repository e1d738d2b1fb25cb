import { drizzle } from "drizzle-orm/d1";

// The query builder is made once per isolate: building it per request cost a measurable share of
// every page render. (No relational `db.query` API is used, so no schema needs registering.)
const instances = new WeakMap<D1Database, ReturnType<typeof drizzle>>();

export function database(d1: D1Database) {
  let db = instances.get(d1);
  if (!db) {
    db = drizzle(d1);
    instances.set(d1, db);
  }
  return db;
}

export type Db = ReturnType<typeof database>;

/**
 * The database through a D1 session whose first read may be answered by the nearest read replica
 * (decision 068), for reads where a moment's staleness is harmless. Writes still go to the primary,
 * and every later read in the session sees them. A session is one request's: never cached.
 */
export function replicaDatabase(d1: D1Database): Db {
  // A session prepares and batches statements as the database does, which is all the builder uses.
  return drizzle(d1.withSession("first-unconstrained") as unknown as D1Database);
}

/** D1 binds at most 100 parameters per statement, so multi-row inserts are cut to fit. */
export const D1_MAX_BOUND_PARAMETERS = 100;

export function chunksOf<T>(rows: T[], paramsPerRow: number): T[][] {
  const size = Math.max(1, Math.floor(D1_MAX_BOUND_PARAMETERS / paramsPerRow));
  return Array.from({ length: Math.ceil(rows.length / size) }, (_, i) => rows.slice(i * size, (i + 1) * size));
}

/** SQLite refused a statement by the named constraint (a CHECK's name, or a unique column as "table.column"). */
export function refusedBy(error: unknown, constraint: string): boolean {
  return String(error instanceof Error ? `${error.message} ${String(error.cause ?? "")}` : error).includes(constraint);
}

/** SQLite refused a row because a unique index already holds its value. */
export const isUniqueViolation = (error: unknown): boolean => refusedBy(error, "UNIQUE constraint failed");

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

// Reads of several domains sent to D1 as one batch: a page that needs them all makes one round trip
// instead of one per read. Each domain hands over its statements, not yet run, and how to make its
// answer from their rows; the page's loader puts the reads together.
//
// A statement is a query as the builder makes it, or, for the reads every render of a page repeats,
// one built once per database handle (`builtOnce`) and bound to this request's values (`bound`):
// building a statement's SQL (walking its columns, joins and conditions) cost a product page's
// render more than running it.
import { Column, type DriverValueDecoder, fillPlaceholders, is, noopDecoder, SQL } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { SelectResultFields } from "drizzle-orm/query-builders/select.types";
import type { Db } from "./client.server";

/** What a statement needs of a prepared query: its SQL and parameters, and how it maps a batch's rows. */
interface PreparedQuery {
  execute(values?: Record<string, unknown>): Promise<unknown>;
  getQuery(): { sql: string; params: unknown[] };
  mapResult(result: unknown, isFromBatch?: boolean): unknown;
}

/** A prepared query and the values of its placeholders; `Rows` is what its execution gives. */
interface Bound<Rows> {
  prepared: PreparedQuery;
  values: Record<string, unknown>;
  /** Never set: carries the type of the rows. */
  rows?: Rows;
}

type Statement = BatchItem<"sqlite"> | Bound<unknown>;

/** A read, not yet run: its statements, and its answer made from their rows. */
export interface Read<T> {
  statements: Statement[];
  answer(rows: unknown[]): T;
}

type Rows<S extends readonly Statement[]> = { [K in keyof S]: S[K] extends Bound<infer R> ? R : Awaited<S[K]> };
type Answers<R extends readonly Read<unknown>[]> = { [K in keyof R]: R[K] extends Read<infer T> ? T : never };

/**
 * A statement the builder makes once per database handle, as `database` makes the builder; values
 * that change per request are `sql.placeholder`s, given to `bound` when it runs.
 */
export function builtOnce<T>(build: (db: Db) => T): (db: Db) => T {
  const built = new WeakMap<Db, T>();
  return (db) => {
    let statement = built.get(db);
    if (!statement) {
      statement = build(db);
      built.set(db, statement);
    }
    return statement;
  };
}

/** A prepared query (from `builtOnce`) with this request's values for its placeholders. */
export function bound<P extends PreparedQuery>(
  prepared: P,
  values: Record<string, unknown> = {},
): Bound<Awaited<ReturnType<P["execute"]>>> {
  return { prepared, values };
}

const isBound = (statement: Statement): statement is Bound<unknown> => "prepared" in statement;

/** Runs `statements` as one batch (one round trip) and gives each one's rows, mapped as the builder maps them. */
async function batchTogether<const S extends readonly Statement[]>(db: Db, statements: S): Promise<Rows<S>> {
  const prepared = statements.map((statement) =>
    isBound(statement) ? statement : { prepared: (statement as unknown as { prepare(): PreparedQuery }).prepare(), values: {} },
  );
  const results = await db.$client.batch(
    prepared.map(({ prepared: query, values }) => {
      const { sql, params } = query.getQuery();
      return db.$client.prepare(sql).bind(...fillPlaceholders(params, values));
    }),
  );
  return results.map((result, i) => prepared[i]!.prepared.mapResult(result, true)) as Rows<S>;
}

/** A read of `statements`, answered by `answer` from their rows (in the same order). */
export function read<const S extends readonly Statement[], T>(statements: S, answer: (rows: Rows<S>) => T): Read<T> {
  return { statements: [...statements], answer: (rows) => answer(rows as Rows<S>) };
}

/** One read of several: their statements in order, and `answer` made from each one's answer. */
export function readOf<const R extends readonly Read<unknown>[], T>(reads: R, answer: (answers: Answers<R>) => T): Read<T> {
  return {
    statements: reads.flatMap((r) => r.statements),
    answer: (rows) => {
      let at = 0;
      const answers = reads.map((r) => {
        const mine = rows.slice(at, at + r.statements.length);
        at += r.statements.length;
        return r.answer(mine);
      });
      return answer(answers as Answers<R>);
    },
  };
}

/** Runs one read on its own (its statements as one batch) and gives its answer. */
export async function readAlone<T>(db: Db, alone: Read<T>): Promise<T> {
  const rows: unknown[] = alone.statements.length > 0 ? await batchTogether(db, alone.statements) : [];
  return alone.answer(rows);
}

/** Runs every read's statements as one batch (one round trip) and answers each read, in order. */
export async function readTogether<const R extends readonly Read<unknown>[]>(db: Db, reads: R): Promise<Answers<R>> {
  return readAlone(
    db,
    readOf(reads, (answers) => answers),
  );
}

/**
 * The decoder an SQL field carries (`mapWith`, or the column it was made from): the builder's mapping
 * reads it, though its types keep it internal. `decodedRows`' test holds the two mappings equal.
 */
const decoderOf = (field: SQL) => (field as unknown as { decoder: DriverValueDecoder<unknown, unknown> }).decoder;

/** A selection one level deep: columns and SQL, no nested objects. */
type FlatFields = Record<string, Column | SQL | SQL.Aliased>;

/**
 * The raw rows (`values()`) of a select of `fields`, as `all()` would give them: each cell decoded by
 * its field's decoder, found once for the statement. The builder's own mapping finds the decoder
 * again for every cell, testing the field's class each time, and a view's columns are proxies, whose
 * class test is slow: a page of 50 orders' 600 cells cost about 0.3 ms of CPU.
 */
export function decodedRows<F extends FlatFields>(fields: F, rows: unknown[][]): SelectResultFields<F>[] {
  const decoders = Object.entries(fields).map(([name, field]) => {
    const decoder = is(field, Column) ? field : decoderOf(is(field, SQL) ? field : field.sql);
    const decode = decoder.mapFromDriverValue;
    // Text and integer columns, and SQL without a decoder of its own, give the driver's value as it
    // is: no call per cell. The others' decoder is taken from the field once, not at every cell
    // through the view's proxy.
    const identity = decode === Column.prototype.mapFromDriverValue || decode === noopDecoder.mapFromDriverValue;
    return { name, decode: identity ? undefined : decode.bind(decoder) };
  });
  return rows.map((row) => {
    const decoded: Record<string, unknown> = {};
    decoders.forEach(({ name, decode }, i) => {
      const value = row[i];
      decoded[name] = value === null || !decode ? value : decode(value);
    });
    return decoded as SelectResultFields<F>;
  });
}

// The seller API's Idempotency-Key (decision 097): a paid request runs once per key, however often
// and however concurrently it is retried. The first request claims the key; a retry of the same
// request waits for it and answers with what it did; the same key with another request is refused.
import { and, eq, isNull, lt } from "drizzle-orm";
import { fail, ok, type Result } from "~/lib/result";
import type { Db } from "../platform/db/client.server";
import { apiIdempotencyKeys } from "../platform/db/schema.server";
import { sha256Hex } from "../platform/tokens.server";

/** How long a retry waits for the request that holds its key before it is told to try again. */
const WAIT_MS = 10_000;
const POLL_MS = 100;
/**
 * A claim older than this whose request never finished (its Worker died) may be taken over. Far
 * longer than any request runs (a slow catalogue or D1 is minutes at worst): taking over a claim
 * whose request is still running would let both charge.
 */
const ABANDONED_MS = 15 * 60_000;
/** How long a key is remembered: a day, as retries of one request come within minutes. */
const IDEMPOTENCY_KEY_DAYS = 1;

type Claim<T> = { kind: "run"; id: number } | { kind: "done"; outcome: T };

/** The request named as data, hashed: what "the same request" means for a key. */
export const requestHash = (request: unknown[]) => sha256Hex(JSON.stringify(request));

/** Claims `key` for the account's request, or finds what the same request did before. */
export async function claimIdempotencyKey<T>(
  db: Db,
  userId: string,
  key: string,
  hash: string,
  now = Date.now(),
): Promise<Result<Claim<T>>> {
  const started = Date.now();
  for (;;) {
    const claimed = await db
      .insert(apiIdempotencyKeys)
      .values({ userId, key, requestHash: hash, claimedAt: now })
      .onConflictDoNothing()
      .returning({ id: apiIdempotencyKeys.id })
      .get();
    if (claimed) return ok({ kind: "run", id: claimed.id });
    const held = await db
      .select()
      .from(apiIdempotencyKeys)
      .where(and(eq(apiIdempotencyKeys.userId, userId), eq(apiIdempotencyKeys.key, key)))
      .get();
    // Released meanwhile (the request that held it failed and changed nothing): claim it again.
    if (!held) continue;
    if (held.requestHash !== hash) return fail("conflict", "This Idempotency-Key was used with a different request");
    if (held.completedAt !== null) return ok({ kind: "done", outcome: JSON.parse(held.outcome ?? "null") as T });
    if (held.claimedAt < Date.now() - ABANDONED_MS) {
      await db
        .delete(apiIdempotencyKeys)
        .where(
          and(eq(apiIdempotencyKeys.id, held.id), isNull(apiIdempotencyKeys.completedAt), eq(apiIdempotencyKeys.claimedAt, held.claimedAt)),
        );
      continue;
    }
    if (Date.now() - started >= WAIT_MS) {
      return fail("conflict", "A request with this Idempotency-Key is still running; try again in a moment", { retryAfterSeconds: 1 });
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

/** The statement recording what the claimed request did, for the transaction that does it. */
export const completeIdempotencyKey = (db: Db, claimId: number, outcome: unknown, now = Date.now()) =>
  db
    .update(apiIdempotencyKeys)
    .set({ completedAt: now, outcome: JSON.stringify(outcome) })
    .where(eq(apiIdempotencyKeys.id, claimId));

/** The request failed having changed nothing: its key is free for a retry. */
export async function releaseIdempotencyKey(db: Db, claimId: number): Promise<void> {
  await db.delete(apiIdempotencyKeys).where(and(eq(apiIdempotencyKeys.id, claimId), isNull(apiIdempotencyKeys.completedAt)));
}

/** Forgets keys older than a day (the cron's job): a retry comes within minutes. */
export async function forgetOldIdempotencyKeys(db: Db, now = Date.now()): Promise<void> {
  await db.delete(apiIdempotencyKeys).where(lt(apiIdempotencyKeys.claimedAt, now - IDEMPOTENCY_KEY_DAYS * 24 * 60 * 60 * 1000));
}

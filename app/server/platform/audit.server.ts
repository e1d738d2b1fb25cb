// The audit log: who did what to whom, when and from which client address, for the actions that
// move money or keys by hand and every change to how an account signs in.
import { and, desc, eq, gt, isNull, lt } from "drizzle-orm";
import type { Db } from "./db/client.server";
import { auditLog } from "./db/schema.server";

export async function audit(
  db: Db,
  actorUserId: string | null,
  action: string,
  subject: string,
  detail: Record<string, unknown> = {},
  ip: string | null = null,
): Promise<void> {
  await db.insert(auditLog).values({ actorUserId, action, subject, detail: JSON.stringify(detail), ip, createdAt: Date.now() });
}

/**
 * When `action` was last audited after `since` for the subject, or for the client address
 * (no address matches entries without one): what limits built on the log ask.
 */
export async function lastAuditedAt(
  db: Db,
  action: string,
  of: { subject: string } | { ip: string | null },
  since: number,
): Promise<number | undefined> {
  const whose = "subject" in of ? eq(auditLog.subject, of.subject) : of.ip === null ? isNull(auditLog.ip) : eq(auditLog.ip, of.ip);
  const last = await db
    .select({ at: auditLog.createdAt })
    .from(auditLog)
    .where(and(eq(auditLog.action, action), whose, gt(auditLog.createdAt, since)))
    .orderBy(desc(auditLog.createdAt))
    .get();
  return last?.at;
}

/** How long the audit log keeps an entry: the Privacy Policy's "security logs for up to a year". */
export const AUDIT_RETENTION_MS = 365 * 24 * 60 * 60 * 1000;

/** Deletes audit entries older than a year (the cron's job). */
export async function forgetOldAuditEntries(db: Db, now = Date.now()): Promise<void> {
  await db.delete(auditLog).where(lt(auditLog.createdAt, now - AUDIT_RETENTION_MS));
}

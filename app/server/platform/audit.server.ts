// The audit log: who did what to whom, for the actions that move money or keys by hand.
import type { Db } from "./db/client.server";
import { auditLog } from "./db/schema.server";

export async function audit(db: Db, actorUserId: string, action: string, subject: string, detail: Record<string, unknown> = {}): Promise<void> {
  await db.insert(auditLog).values({ actorUserId, action, subject, detail: JSON.stringify(detail), createdAt: Date.now() });
}

// The audit log: who did what to whom, when and from which client address, for the actions that
// move money or keys by hand and every change to how an account signs in.
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

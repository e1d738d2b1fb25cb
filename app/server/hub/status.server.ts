// Status updates: the public list and the admin's post.
import { desc } from "drizzle-orm";
import * as v from "valibot";
import { statusUpdateSchema } from "~/lib/schemas/status";
import type { Db } from "../platform/db/client.server";
import { statusUpdates } from "../platform/db/schema.server";

export const STATUS_LIST_LIMIT = 10;

export function latestStatusUpdates(db: Db) {
  return db
    .select({
      id: statusUpdates.id,
      title: statusUpdates.title,
      description: statusUpdates.description,
      type: statusUpdates.type,
      createdAt: statusUpdates.createdAt,
    })
    .from(statusUpdates)
    .orderBy(desc(statusUpdates.createdAt), desc(statusUpdates.id))
    .limit(STATUS_LIST_LIMIT);
}

export async function postStatusUpdate(
  db: Db,
  authorId: string,
  input: unknown,
): Promise<{ ok: true } | { ok: false; message: string }> {
  const parsed = v.safeParse(statusUpdateSchema, input);
  if (!parsed.success) return { ok: false, message: parsed.issues[0].message };
  await db.insert(statusUpdates).values({ ...parsed.output, authorId, createdAt: Date.now() });
  return { ok: true };
}

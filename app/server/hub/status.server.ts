// Status updates: the public list and the admin's post.
import { desc } from "drizzle-orm";
import { fail, ok, type Result } from "~/lib/result";
import type { StatusUpdateInput } from "~/lib/schemas/status";
import type { Viewer } from "~/lib/viewer";
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

/** Who may post an update: a signed-in admin. The page is public, so anyone can try. */
export function statusAuthor(viewer: Viewer | null): Result<Viewer> {
  if (!viewer) return fail("unauthenticated", "Please log in to continue");
  if (!viewer.isAdmin) return fail("forbidden", "You don't have permission to post status updates");
  return ok(viewer);
}

export async function postStatusUpdate(db: Db, author: Viewer, input: StatusUpdateInput, now = Date.now()) {
  await db.insert(statusUpdates).values({ ...input, authorId: author.id, createdAt: now });
}

// Downloads: files in the private R2 bucket `downloads`, listed from D1 and streamed through the
// Worker only to members allowed to have them. The bucket is never public.
import { and, desc, eq, ne } from "drizzle-orm";
import { fail, ok, type Result } from "~/lib/result";
import type { UploadInput } from "~/lib/schemas/downloads";
import type { Viewer } from "~/lib/viewer";
import { audit } from "../platform/audit.server";
import type { Db } from "../platform/db/client.server";
import { downloadableFiles } from "../platform/db/schema.server";
import { hasActiveSubscription } from "../fulfilment/subscriptions.server";

export const SUBSCRIPTION_REQUIRED = "Active subscription required to download this file";

/**
 * Why a member may have subscription-only files, if at all: admins may always, members with an
 * active plan while it runs, everyone else may have only the files that need no subscription.
 */
export type DownloadAccess = "admin" | "subscriber" | "none";

export async function downloadAccess(db: Db, viewer: Viewer, now = Date.now()): Promise<DownloadAccess> {
  if (viewer.isAdmin) return "admin";
  return (await hasActiveSubscription(db, viewer.id, now)) ? "subscriber" : "none";
}

/** The one rule the download link and the downloads page both follow. */
function mayDownload(access: DownloadAccess, file: { requiresSubscription: boolean }): boolean {
  return access !== "none" || !file.requiresSubscription;
}

/** The listed files, each saying whether a member with `access` may download it. */
export async function activeFiles(db: Db, access: DownloadAccess) {
  const files = await db
    .select({
      id: downloadableFiles.id,
      fileName: downloadableFiles.fileName,
      fileSize: downloadableFiles.fileSize,
      version: downloadableFiles.version,
      description: downloadableFiles.description,
      requiresSubscription: downloadableFiles.requiresSubscription,
      createdAt: downloadableFiles.createdAt,
    })
    .from(downloadableFiles)
    .where(eq(downloadableFiles.isActive, true))
    .orderBy(desc(downloadableFiles.createdAt));
  return files.map((file) => ({ ...file, allowed: mayDownload(access, file) }));
}

/** `attachment` with a safe ASCII fallback name and the real name for browsers that read RFC 5987. */
export function contentDisposition(fileName: string): string {
  const ascii = fileName.replace(/[^\x20-\x7e]/g, "_").replace(/["\\]/g, "_");
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(fileName)}`;
}

interface Download {
  fileName: string;
  contentType: string;
  object: R2ObjectBody;
}

/** The file and its bytes, if `viewer` may have it: subscription-only files need an active plan. */
export async function openDownload(db: Db, bucket: R2Bucket, viewer: Viewer, fileId: string, now = Date.now()): Promise<Result<Download>> {
  const file = await db
    .select()
    .from(downloadableFiles)
    .where(and(eq(downloadableFiles.id, fileId), eq(downloadableFiles.isActive, true)))
    .get();
  if (!file) return fail("not-found", "File not found");
  // A file for everyone needs no look-up of the member's plan.
  if (file.requiresSubscription && !mayDownload(await downloadAccess(db, viewer, now), file)) {
    return fail("forbidden", SUBSCRIPTION_REQUIRED);
  }
  const object = await bucket.get(file.filePath);
  if (!object) return fail("not-found", "File not found");
  return ok({ fileName: file.fileName, contentType: file.contentType, object });
}

/**
 * Admin: stores a new version of a file and makes it the one members get; older versions with the
 * same name stop being listed (their objects stay in the bucket).
 */
export async function uploadFile(db: Db, bucket: R2Bucket, admin: Viewer, input: UploadInput, now = Date.now()) {
  const { file, version, description, requiresSubscription } = input;
  const fileName = file.name.replace(/[/\\]/g, "_").slice(0, 200) || "download.bin";
  const id = crypto.randomUUID();
  const key = `files/${id}/${fileName}`;
  const contentType = file.type || "application/octet-stream";
  await bucket.put(key, file, { httpMetadata: { contentType } });
  await db.batch([
    db.insert(downloadableFiles).values({
      id,
      fileName,
      filePath: key,
      fileSize: file.size,
      contentType,
      version,
      description: description || null,
      requiresSubscription,
      isActive: true,
      createdAt: now,
    }),
    db
      .update(downloadableFiles)
      .set({ isActive: false })
      .where(and(eq(downloadableFiles.fileName, fileName), ne(downloadableFiles.id, id))),
  ]);
  await audit(db, admin.id, "download.upload", fileName, { version, size: file.size });
  return { fileName, version };
}

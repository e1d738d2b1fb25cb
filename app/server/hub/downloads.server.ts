// Downloads: files in the private R2 bucket `downloads`, listed from D1 and streamed through the
// Worker only to members allowed to have them. The bucket is never public.
import { and, desc, eq, ne } from "drizzle-orm";
import * as v from "valibot";
import type { Viewer } from "~/lib/viewer";
import { audit } from "../platform/audit.server";
import type { Db } from "../platform/db/client.server";
import { downloadableFiles } from "../platform/db/schema.server";
import { hasActiveSubscription } from "../fulfilment/subscriptions.server";

export const MAX_UPLOAD_BYTES = 90 * 1024 * 1024;
export const SUBSCRIPTION_REQUIRED = "Active subscription required to download this file";

export function activeFiles(db: Db) {
  return db
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
}

/** `attachment` with a safe ASCII fallback name and the real name for browsers that read RFC 5987. */
export function contentDisposition(fileName: string): string {
  const ascii = fileName.replace(/[^\x20-\x7e]/g, "_").replace(/["\\]/g, "_");
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(fileName)}`;
}

/** The file as a download response, or the reason it is refused. */
export async function downloadResponse(db: Db, bucket: R2Bucket, viewer: Viewer, fileId: string, now = Date.now()): Promise<Response> {
  const file = await db
    .select()
    .from(downloadableFiles)
    .where(and(eq(downloadableFiles.id, fileId), eq(downloadableFiles.isActive, true)))
    .get();
  const text = (status: number, body: string) =>
    new Response(body, { status, headers: { "Content-Type": "text/plain; charset=utf-8", "Cache-Control": "private, no-store" } });
  if (!file) return text(404, "File not found");
  if (file.requiresSubscription && !viewer.isAdmin && !(await hasActiveSubscription(db, viewer.id, now))) {
    return text(403, SUBSCRIPTION_REQUIRED);
  }
  const object = await bucket.get(file.filePath);
  if (!object) return text(404, "File not found");
  return new Response(object.body, {
    headers: {
      "Content-Type": file.contentType,
      "Content-Length": String(object.size),
      "Content-Disposition": contentDisposition(file.fileName),
      "Cache-Control": "private, no-store",
      ETag: object.httpEtag,
    },
  });
}

const uploadSchema = v.object({
  version: v.pipe(v.optional(v.string(), ""), v.trim(), v.minLength(1, "Enter a version"), v.maxLength(40, "Versions are at most 40 characters")),
  description: v.pipe(v.optional(v.string(), ""), v.trim(), v.maxLength(500, "Descriptions are at most 500 characters")),
  requiresSubscription: v.optional(v.string()),
});

/**
 * Admin: stores a new version of a file and makes it the one members get; older versions with the
 * same name stop being listed (their objects stay in the bucket).
 */
export async function uploadFile(
  db: Db,
  bucket: R2Bucket,
  admin: Viewer,
  form: FormData,
  now = Date.now(),
): Promise<{ ok: true; fileName: string; version: string } | { ok: false; message: string }> {
  const file = form.get("file");
  if (!(file instanceof File) || file.size === 0) return { ok: false, message: "Choose a file to upload" };
  if (file.size > MAX_UPLOAD_BYTES) return { ok: false, message: "Files can be at most 90 MB" };
  const fields = v.safeParse(uploadSchema, Object.fromEntries([...form].filter(([, value]) => typeof value === "string")));
  if (!fields.success) return { ok: false, message: fields.issues[0].message };
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
      version: fields.output.version,
      description: fields.output.description || null,
      requiresSubscription: fields.output.requiresSubscription === "on",
      isActive: true,
      createdAt: now,
    }),
    db
      .update(downloadableFiles)
      .set({ isActive: false })
      .where(and(eq(downloadableFiles.fileName, fileName), ne(downloadableFiles.id, id))),
  ]);
  await audit(db, admin.id, "download.upload", fileName, { version: fields.output.version, size: file.size });
  return { ok: true, fileName, version: fields.output.version };
}

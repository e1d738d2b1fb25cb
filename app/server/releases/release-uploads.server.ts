// Staff publishing releases: a file of up to 2 GB goes into R2 as a multipart upload, one part per
// request, so no request holds more than one part (decision 056). The parts stored so far are
// kept on the release, so a dropped connection resumes where it stopped. Finishing joins the
// parts and hashes the stored object as a stream; only then can it be published. Yanking hides a
// published release and keeps it.
import { and, desc, eq, inArray, sql } from "drizzle-orm";
import { fail, ok, type Result } from "~/lib/result";
import { MAX_PARTS, PART_BYTES, type StartReleaseInput } from "~/lib/schemas/releases";
import type { Viewer } from "~/lib/viewer";
import { audit } from "../platform/audit.server";
import { type Db, refusedBy } from "../platform/db/client.server";
import { releases } from "../platform/db/schema.server";
import { objectDigest } from "./release-shelves.server";

type Release = typeof releases.$inferSelect;

/** How many parts a file of `size` bytes is sent in, and how long part `n` (from 1) must be. */
export const partCount = (size: number) => Math.ceil(size / PART_BYTES);
const partLength = (size: number, n: number) => Math.min(PART_BYTES, size - (n - 1) * PART_BYTES);

/** Every release, newest first, for the staff's page. */
export const allReleases = (db: Db) => db.select().from(releases).orderBy(desc(releases.createdAt));

/**
 * Opens the multipart upload of a new release of one of `products` (the catalogue's, by title); its
 * row says `uploading` until it is finished.
 */
export async function startRelease(
  db: Db,
  bucket: R2Bucket,
  admin: Viewer,
  input: StartReleaseInput,
  products: ReadonlySet<string>,
  now = Date.now(),
): Promise<Result<{ id: string; partBytes: number; parts: number }>> {
  if (!products.has(input.product)) return fail("invalid", "Choose a product the shop sells", { field: "product" });
  const id = crypto.randomUUID();
  const fileName = input.fileName.replace(/[/\\]/g, "_");
  const objectKey = `releases/${id}/${fileName}`;
  const contentType = input.contentType || "application/octet-stream";
  const upload = await bucket.createMultipartUpload(objectKey, { httpMetadata: { contentType } });
  try {
    await db.insert(releases).values({
      id,
      product: input.product,
      version: input.version,
      channel: input.channel,
      notes: input.notes,
      entitlement: input.entitlement,
      fileName,
      objectKey,
      contentType,
      uploadId: upload.uploadId,
      size: input.size,
      createdBy: admin.id,
      createdAt: now,
    });
  } catch (error) {
    await upload.abort();
    if (refusedBy(error, "releases.product, releases.channel, releases.version")) {
      return fail("conflict", `Version ${input.version} of ${input.product} is already on the ${input.channel} channel`, {
        field: "version",
      });
    }
    if (refusedBy(error, "FOREIGN KEY")) return fail("invalid", "No such entitlement", { field: "entitlement" });
    throw error;
  }
  return ok({ id, partBytes: PART_BYTES, parts: partCount(input.size) });
}

const uploading = async (db: Db, id: string): Promise<Result<Release & { uploadId: string }>> => {
  const release = await db.select().from(releases).where(eq(releases.id, id)).get();
  if (!release) return fail("not-found", "Release not found");
  if (release.state !== "uploading" || release.uploadId === null) return fail("conflict", "This release's file is already complete");
  return ok({ ...release, uploadId: release.uploadId });
};

/** Where an upload stands: which parts are stored, for a resumed upload to skip them. */
export async function uploadProgress(db: Db, id: string): Promise<Result<{ parts: number[]; partBytes: number; total: number }>> {
  const release = await uploading(db, id);
  if (!release.ok) return release;
  return ok({ parts: Object.keys(release.value.parts).map(Number), partBytes: PART_BYTES, total: partCount(release.value.size) });
}

/** The upload part `n` belongs to and the length it must have, unless the part is refused. */
async function partRefusal(
  db: Db,
  id: string,
  n: number,
  length: number,
): Promise<Result<{ objectKey: string; uploadId: string; expected: number }>> {
  const release = await uploading(db, id);
  if (!release.ok) return release;
  const { objectKey, uploadId, size } = release.value;
  if (!Number.isInteger(n) || n < 1 || n > Math.min(partCount(size), MAX_PARTS)) return fail("invalid", "No such part");
  const expected = partLength(size, n);
  return length === expected ? ok({ objectKey, uploadId, expected }) : fail("invalid", `Part ${n} must be ${expected} bytes`);
}

/**
 * Stores part `n` from `body` (streamed to R2, `length` bytes as the request declared). Every part
 * but the last is exactly PART_BYTES, as R2 requires; sending a part again replaces it.
 */
export async function storePart(
  db: Db,
  bucket: R2Bucket,
  id: string,
  n: number,
  body: ReadableStream<Uint8Array> | null,
  length: number,
): Promise<Result<{ stored: number }>> {
  const refused = await partRefusal(db, id, n, length);
  if (!refused.ok) {
    // A refused part is not read: tell the sender we are done with it.
    await body?.cancel();
    return refused;
  }
  const { objectKey, uploadId, expected } = refused.value;
  if (!body) return fail("invalid", `Part ${n} must be ${expected} bytes`);
  const { readable, writable } = new FixedLengthStream(expected);
  const [part] = await Promise.all([bucket.resumeMultipartUpload(objectKey, uploadId).uploadPart(n, readable), body.pipeTo(writable)]);
  // One statement per part, so parts arriving side by side never overwrite each other's etag.
  const [row] = await db
    .update(releases)
    .set({ parts: sql`json_set(${releases.parts}, ${`$."${n}"`}, ${part.etag})` })
    .where(and(eq(releases.id, id), eq(releases.state, "uploading")))
    .returning({ parts: releases.parts });
  if (!row) return fail("conflict", "This release's file is already complete");
  return ok({ stored: Object.keys(row.parts).length });
}

/** Joins the parts into the file and records its SHA-256; the release is then ready to publish. */
export async function finishRelease(
  db: Db,
  bucket: R2Bucket,
  admin: Viewer,
  id: string,
): Promise<Result<{ sha256: string; size: number }>> {
  const release = await uploading(db, id);
  if (!release.ok) return release;
  const { objectKey, uploadId, size, parts, version, channel } = release.value;
  const total = partCount(size);
  const missing = Array.from({ length: total }, (_, i) => i + 1).filter((n) => !parts[String(n)]);
  if (missing.length > 0)
    return fail("conflict", `Parts still missing: ${missing.slice(0, 5).join(", ")}${missing.length > 5 ? "..." : ""}`);
  const object = await bucket
    .resumeMultipartUpload(objectKey, uploadId)
    .complete(Object.entries(parts).map(([n, etag]) => ({ partNumber: Number(n), etag })));
  if (object.size !== size) return fail("invalid", `The file stored is ${object.size} bytes, not the ${size} announced`);
  const sha256 = (await objectDigest(bucket, objectKey))?.sha256;
  if (!sha256) return fail("failed", "The stored file could not be read back; try finishing again");
  await db
    .update(releases)
    .set({ state: "ready", uploadId: null, sha256 })
    .where(and(eq(releases.id, id), eq(releases.state, "uploading")));
  await audit(db, admin.id, "release.upload", `${release.value.product} ${channel} ${version}`, { size, sha256 });
  return ok({ sha256, size });
}

const TRANSITIONS = {
  publish: { from: ["ready", "yanked"], to: "published", audit: "release.publish" },
  yank: { from: ["published"], to: "yanked", audit: "release.yank" },
} as const;

/** Publishes a finished release (or one yanked before) or yanks a published one: one conditional update. */
export async function changeRelease(
  db: Db,
  admin: Viewer,
  id: string,
  change: keyof typeof TRANSITIONS,
  now = Date.now(),
): Promise<Result<{ product: string; version: string; channel: string }>> {
  const { from, to } = TRANSITIONS[change];
  const [row] = await db
    .update(releases)
    .set(to === "published" ? { state: to, publishedAt: now, yankedAt: null } : { state: to, yankedAt: now })
    .where(and(eq(releases.id, id), inArray(releases.state, [...from])))
    .returning({ product: releases.product, version: releases.version, channel: releases.channel });
  if (!row)
    return fail(
      "conflict",
      change === "publish" ? "Only a finished or yanked release can be published" : "Only a published release can be yanked",
    );
  await audit(db, admin.id, TRANSITIONS[change].audit, `${row.product} ${row.channel} ${row.version}`);
  return ok(row);
}

/** Drops an upload never published: its parts or object, and its row. */
export async function discardRelease(db: Db, bucket: R2Bucket, admin: Viewer, id: string): Promise<Result<{ version: string }>> {
  const [row] = await db
    .delete(releases)
    .where(and(eq(releases.id, id), inArray(releases.state, ["uploading", "ready"])))
    .returning();
  if (!row) return fail("conflict", "Only an unpublished release can be discarded");
  if (row.uploadId) await bucket.resumeMultipartUpload(row.objectKey, row.uploadId).abort();
  else await bucket.delete(row.objectKey);
  await audit(db, admin.id, "release.discard", `${row.product} ${row.channel} ${row.version}`);
  return ok({ version: row.version });
}

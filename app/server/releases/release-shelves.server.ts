// Releases as members and their programs get them: per product and channel, the newest published
// release and the older ones, each locked or not by the one download rule (download-access.server),
// the newest one a licence may have, and a release opened for download with its SHA-256 (computed
// from the stored object the first time, for releases moved from the old downloads list).
import { and, eq, isNull } from "drizzle-orm";
import type { LicencePlan } from "~/lib/plans";
import { type ChannelShelf, RELEASE_CHANNELS, type ReleaseChannel, type ReleaseView } from "~/lib/releases";
import { fail, ok, type Result } from "~/lib/result";
import { compareSemver } from "~/lib/semver";
import { type Catalogue, plansByProduct } from "../catalogue/catalogue.server";
import { listEntitlements } from "../catalogue/entitlements.server";
import type { Db } from "../platform/db/client.server";
import { releases } from "../platform/db/schema.server";
import { toHex } from "../platform/tokens.server";
import { type Downloader, lackFor, lockedFor, refusalMessage, visibleTo } from "./download-access.server";
import { onFirstUse } from "../platform/on-first-use.server";

const markdownParser = onFirstUse(() => import("../platform/markdown.server"));

export type Release = typeof releases.$inferSelect;

/** The SHA-256 and size of a stored object, read as a stream: memory stays flat whatever its size. */
export async function objectDigest(bucket: R2Bucket, key: string): Promise<{ sha256: string; size: number } | null> {
  const object = await bucket.get(key);
  if (!object) return null;
  // Workers' native streaming digest (the DOM's Crypto type, merged in here, does not list it).
  const digest = new (crypto as Crypto & { DigestStream: typeof DigestStream }).DigestStream("SHA-256");
  await object.body.pipeTo(digest);
  return { sha256: toHex(new Uint8Array(await digest.digest)), size: object.size };
}

/**
 * `release` with its SHA-256, so that no release is served or offered without one. A release moved
 * from the old downloads list has none (nor, perhaps, a size): the stored object is hashed once and
 * both are kept by one conditional update; of two requests racing, both measured the same bytes.
 * Null when the object is missing.
 */
async function withChecksum(db: Db, bucket: R2Bucket, release: Release): Promise<Release | null> {
  if (release.sha256) return release;
  const measured = await objectDigest(bucket, release.objectKey);
  if (!measured) return null;
  await db
    .update(releases)
    .set(measured)
    .where(and(eq(releases.id, release.id), isNull(releases.sha256)));
  return { ...release, ...measured };
}

/** Published releases of every product, newest version first within each product's channel. */
async function publishedReleases(db: Db): Promise<Release[]> {
  const rows = await db.select().from(releases).where(eq(releases.state, "published"));
  // Versions that differ only in build metadata rank alike (moved files): the newer publication first.
  const newestFirst = (a: Release, b: Release) => compareSemver(b.version, a.version) || (b.publishedAt ?? 0) - (a.publishedAt ?? 0);
  return rows.sort((a, b) => a.product.localeCompare(b.product) || a.channel.localeCompare(b.channel) || newestFirst(a, b));
}

/** The newest published release of `product` on `channel` that `downloader` may have, with its checksum. */
export async function latestReleaseFor(
  db: Db,
  bucket: R2Bucket,
  downloader: Downloader,
  product: string,
  channel: ReleaseChannel,
): Promise<Release | null> {
  const newest = (await publishedReleases(db)).find(
    (release) => release.product === product && release.channel === channel && lackFor(downloader, release) === null,
  );
  return newest ? withChecksum(db, bucket, newest) : null;
}

/** What to buy, per product, from the catalogue; the rule itself never needs it, so a catalogue failure only names fewer plans. */
const productPlans = (catalogue: Catalogue) => plansByProduct(catalogue).catch(() => new Map<string, LicencePlan[]>());

/**
 * The release `id` opened for `downloader` by the one rule, with its checksum: not found unless it
 * may be seen, refused (saying what is missing and what to buy) unless the rule allows it.
 */
export async function openRelease(
  db: Db,
  bucket: R2Bucket,
  downloader: Downloader,
  id: string,
  catalogue: Catalogue,
): Promise<Result<Release>> {
  const release = await db.select().from(releases).where(eq(releases.id, id)).get();
  if (!release || !visibleTo(downloader, release)) return fail("not-found", "Release not found");
  const lack = lackFor(downloader, release);
  if (lack) {
    const [defined, plans] = await Promise.all([listEntitlements(db), productPlans(catalogue)]);
    return fail("forbidden", refusalMessage(lockedFor(lack, defined, plans.get(release.product))));
  }
  const checked = await withChecksum(db, bucket, release);
  return checked ? ok(checked) : fail("not-found", "Release file missing");
}

/** The bytes asked for: the whole object, or `range`; only its metadata for a HEAD. */
export async function releaseObject(
  bucket: R2Bucket,
  release: Release,
  range: { offset: number; length: number } | null,
  headOnly: boolean,
): Promise<R2Object | null> {
  if (headOnly) return bucket.head(release.objectKey);
  return bucket.get(release.objectKey, range ? { range } : {});
}

/**
 * The downloads page's releases: per product and channel, the newest published version and the
 * older ones, each with its checksum once known, locked or not for `downloader`; a locked one says what is
 * missing and the product's plans that include it.
 */
export async function releaseShelves(db: Db, downloader: Downloader, catalogue: Catalogue): Promise<ChannelShelf[]> {
  // A listing never reads a file: a release still without its checksum (one moved from the old
  // downloads list) gets it at its first download or offer, not whenever someone opens the page.
  const [published, defined, plans, { renderMarkdown }] = await Promise.all([
    publishedReleases(db),
    listEntitlements(db),
    productPlans(catalogue),
    // The Markdown parser is loaded with the first page that shows notes (decision 107).
    markdownParser(),
  ]);
  const view = (release: Release): ReleaseView => {
    const lack = lackFor(downloader, release);
    return {
      id: release.id,
      version: release.version,
      notesHtml: renderMarkdown(release.notes),
      fileName: release.fileName,
      size: release.size,
      sha256: release.sha256,
      publishedAt: release.publishedAt,
      locked: lack ? lockedFor(lack, defined, plans.get(release.product)) : null,
    };
  };
  const products = [...new Set(published.map((release) => release.product))];
  return products.flatMap((product) =>
    RELEASE_CHANNELS.flatMap((channel) => {
      const [latest, ...older] = published.filter((release) => release.product === product && release.channel === channel).map(view);
      return latest ? [{ product, channel, latest, older }] : [];
    }),
  );
}

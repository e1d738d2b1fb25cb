// Releases as members and their programs get them: what a member's licences entitle them to, the
// newest published release per channel they may use, and the bytes (streamed from R2, whole or a
// range). Beta builds need the `beta` entitlement; a release may need one more (decision 055).
import { and, eq, isNull, or, gt, sql } from "drizzle-orm";
import { LICENCE_PLANS } from "~/lib/plans";
import { type ChannelShelf, RELEASE_CHANNELS, type ReleaseChannel, type ReleaseView, releaseNeeds } from "~/lib/releases";
import { fail, ok, type Result } from "~/lib/result";
import { compareSemver } from "~/lib/semver";
import type { Viewer } from "~/lib/viewer";
import { listEntitlements } from "../catalogue/entitlements.server";
import type { Db } from "../platform/db/client.server";
import { licences, releases } from "../platform/db/schema.server";
import { renderMarkdown } from "../platform/markdown.server";

export type Release = typeof releases.$inferSelect;

/** What a member may have: everything (staff who publish), or what their live licences grant. */
export type ReleaseAccess = { kind: "staff" } | { kind: "member"; entitlements: ReadonlySet<string> };

/**
 * The entitlements of the member's licences that still run (not revoked, banned, paused or
 * expired; a key not yet activated counts, it was bought): their union.
 */
export async function releaseAccess(db: Db, viewer: Viewer, now = Date.now()): Promise<ReleaseAccess> {
  if (viewer.isAdmin) return { kind: "staff" };
  const rows = await db
    .select({ entitlements: licences.entitlements })
    .from(licences)
    .where(
      and(
        sql`lower(${licences.ownerEmail}) = lower(${viewer.email})`,
        isNull(licences.revokedAt),
        isNull(licences.bannedAt),
        isNull(licences.pausedAt),
        or(isNull(licences.expiresAt), gt(licences.expiresAt, now)),
      ),
    );
  return { kind: "member", entitlements: new Set(rows.flatMap((row) => row.entitlements)) };
}

/** What `release` needs that `access` lacks; empty when it may be downloaded. */
export function missingFor(access: ReleaseAccess, release: Pick<Release, "channel" | "entitlement">): string[] {
  if (access.kind === "staff") return [];
  return releaseNeeds(release).filter((name) => !access.entitlements.has(name));
}

/** Published releases, newest version first within each channel. */
export async function publishedReleases(db: Db): Promise<Release[]> {
  const rows = await db.select().from(releases).where(eq(releases.state, "published"));
  return rows.sort((a, b) => a.channel.localeCompare(b.channel) || compareSemver(b.version, a.version));
}

/** The newest published release on `channel` that a licence granting `granted` may have. */
export async function latestReleaseFor(db: Db, granted: readonly string[], channel: ReleaseChannel): Promise<Release | undefined> {
  const access: ReleaseAccess = { kind: "member", entitlements: new Set(granted) };
  return (await publishedReleases(db)).find((release) => release.channel === channel && missingFor(access, release).length === 0);
}

/** A published release `access` may download (staff may also fetch one not yet published, to check it). */
export async function downloadableRelease(db: Db, access: ReleaseAccess, id: string): Promise<Result<Release>> {
  const release = await db.select().from(releases).where(eq(releases.id, id)).get();
  const visible = release && (release.state === "published" || (access.kind === "staff" && release.state === "ready"));
  if (!visible) return fail("not-found", "Release not found");
  const missing = missingFor(access, release);
  if (missing.length > 0) return fail("forbidden", `Your plan does not include ${missing.join(", ")}`);
  return ok(release);
}

/** The bytes asked for: the whole object, or `range`; only its metadata for a HEAD. */
export async function releaseObject(bucket: R2Bucket, release: Release, range: { offset: number; length: number } | null, headOnly: boolean): Promise<R2Object | null> {
  if (headOnly) return bucket.head(release.objectKey);
  return bucket.get(release.objectKey, range ? { range } : {});
}

/**
 * The downloads page's releases: per channel, the newest published version and the older ones,
 * each locked or not for `access`, a locked one naming the plans that would unlock it.
 */
export async function releaseShelves(db: Db, access: ReleaseAccess): Promise<ChannelShelf[]> {
  const [published, defined] = await Promise.all([publishedReleases(db), listEntitlements(db)]);
  const byName = new Map(defined.map((entitlement) => [entitlement.name, entitlement]));
  const view = (release: Release): ReleaseView => {
    const missing = missingFor(access, release);
    const plans = LICENCE_PLANS.filter((plan) => missing.every((name) => byName.get(name)?.plans.includes(plan)));
    return {
      id: release.id,
      version: release.version,
      notesHtml: renderMarkdown(release.notes),
      fileName: release.fileName,
      size: release.size,
      sha256: release.sha256,
      publishedAt: release.publishedAt,
      locked: missing.length === 0 ? null : { needs: missing.map((name) => byName.get(name)?.label ?? name), plans },
    };
  };
  return RELEASE_CHANNELS.flatMap((channel) => {
    const [latest, ...older] = published.filter((release) => release.channel === channel).map(view);
    return latest ? [{ channel, latest, older }] : [];
  });
}

// What the program's auto-update gets: the newest release its licence may have on a channel, inside
// the signed answer, with a short-lived download link signed by the shop's licence key, so the
// file can be fetched without a session and a link cannot be made up or kept for later.
import { fail, type Result } from "~/lib/result";
import type { ReleaseChannel } from "~/lib/releases";
import type { LicenceAnswer } from "../licences/validation.server";
import type { LicenceSigner } from "../licences/signing.server";
import type { Db } from "../platform/db/client.server";
import { fromBase64Url, toBase64Url, fromBase64 } from "../platform/tokens.server";
import { downloadableRelease, latestReleaseFor, type Release } from "./releases.server";

/** How long a signed download link works. */
export const DOWNLOAD_LINK_SECONDS = 15 * 60;

export interface ReleaseOffer {
  version: string;
  channel: ReleaseChannel;
  notes: string;
  fileName: string;
  size: number;
  sha256: string;
  publishedAt: string;
  url: string;
  urlExpiresAt: string;
}

/** The validation's answer, the channel asked about and its newest release for this licence (null when none). */
export type LatestReleaseAnswer = LicenceAnswer & { channel: ReleaseChannel; release: ReleaseOffer | null };

const linkBytes = (id: string, expires: number) => new TextEncoder().encode(`release-download\n${id}\n${expires}`);

async function downloadLink(signer: LicenceSigner, origin: string, release: Release, now: number): Promise<{ url: string; expires: number }> {
  const expires = now + DOWNLOAD_LINK_SECONDS * 1000;
  const signature = toBase64Url(fromBase64(await signer.sign(linkBytes(release.id, expires))));
  return { url: `${origin}/api/v1/releases/${release.id}/download?expires=${expires}&signature=${signature}`, expires };
}

/** The signed answer's body: the release only for a VALID licence that includes what it needs. */
export async function latestReleaseAnswer(db: Db, signer: LicenceSigner, origin: string, answer: LicenceAnswer, channel: ReleaseChannel, now = Date.now()): Promise<LatestReleaseAnswer> {
  const release = answer.valid && answer.licence ? await latestReleaseFor(db, answer.licence.entitlements, channel) : undefined;
  if (!release?.sha256 || release.publishedAt === null) return { ...answer, channel, release: null };
  const link = await downloadLink(signer, origin, release, now);
  return {
    ...answer,
    channel,
    release: {
      version: release.version,
      channel: release.channel,
      notes: release.notes,
      fileName: release.fileName,
      size: release.size,
      sha256: release.sha256,
      publishedAt: new Date(release.publishedAt).toISOString(),
      url: link.url,
      urlExpiresAt: new Date(link.expires).toISOString(),
    },
  };
}

/** The release a signed link names, if the link is genuine, unexpired, and the release still published. */
export async function releaseByLink(db: Db, signer: LicenceSigner, id: string, link: { expires: string | null; signature: string | null }, now = Date.now()): Promise<Result<Release>> {
  const expires = Number(link.expires);
  let genuine = false;
  try {
    genuine = Number.isSafeInteger(expires) && link.signature !== null && (await signer.verify(linkBytes(id, expires), fromBase64Url(link.signature)));
  } catch {
    genuine = false;
  }
  if (!genuine) return fail("forbidden", "This download link is not valid");
  if (expires <= now) return fail("forbidden", "This download link has expired; ask for the latest release again");
  // The link was issued to a licence that may have it; staff rules (published, not yanked) still apply.
  const found = await downloadableRelease(db, { kind: "staff" }, id);
  return found.ok && found.value.state !== "published" ? fail("not-found", "Release not found") : found;
}

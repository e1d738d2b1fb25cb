// What the program's auto-update gets: the newest release its licence may have on a channel, inside
// the signed answer, with a short-lived download link signed by the shop's licence key. The link
// names the release and the licence it was issued for, so it needs no session, cannot be made up,
// and is judged again by the one download rule when it is used (decision 082): a licence that
// stops being live stops its links at once.
import { fail, type Result } from "~/lib/result";
import type { ReleaseChannel } from "~/lib/releases";
import type { Catalogue } from "../catalogue/catalogue.server";
import type { LicenceAnswer } from "../licences/validation.server";
import type { LicenceSigner } from "../licences/signing.server";
import type { Db } from "../platform/db/client.server";
import { fromBase64Url, toBase64Url, fromBase64 } from "../platform/tokens.server";
import { licenceHolder } from "./download-access.server";
import { latestReleaseFor, openRelease, type Release } from "./release-shelves.server";

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

const linkBytes = (releaseId: string, licenceId: number, expires: number) =>
  new TextEncoder().encode(`release-download\n${releaseId}\n${licenceId}\n${expires}`);

/** A link to release `releaseId` for licence `licenceId`, signed by the shop, that works for DOWNLOAD_LINK_SECONDS. */
export async function signedDownloadLink(
  signer: LicenceSigner,
  origin: string,
  releaseId: string,
  licenceId: number,
  now: number,
): Promise<{ url: string; expires: number }> {
  const expires = now + DOWNLOAD_LINK_SECONDS * 1000;
  const signature = toBase64Url(fromBase64(await signer.sign(linkBytes(releaseId, licenceId, expires))));
  return { url: `${origin}/api/v1/releases/${releaseId}/download?licence=${licenceId}&expires=${expires}&signature=${signature}`, expires };
}

/** The signed answer's body: a release only for a VALID licence that the download rule lets have it. */
export async function latestReleaseAnswer(
  db: Db,
  bucket: R2Bucket,
  signer: LicenceSigner,
  origin: string,
  answer: LicenceAnswer,
  channel: ReleaseChannel,
  now = Date.now(),
): Promise<LatestReleaseAnswer> {
  const holder = answer.valid && answer.licence ? await licenceHolder(db, { key: answer.key }, now) : null;
  const [licence] = holder?.licences ?? [];
  const release = holder && licence ? await latestReleaseFor(db, bucket, holder, licence.product, channel) : null;
  if (!licence || !release?.sha256 || release.publishedAt === null) return { ...answer, channel, release: null };
  const link = await signedDownloadLink(signer, origin, release.id, licence.id, now);
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

interface LinkParameters {
  licence: string | null;
  expires: string | null;
  signature: string | null;
}

/**
 * The release a signed link names, opened for the licence it was issued for: if the link is
 * genuine and unexpired, and the download rule still lets that licence have a published release.
 */
export async function releaseByLink(
  db: Db,
  bucket: R2Bucket,
  signer: LicenceSigner,
  catalogue: Catalogue,
  id: string,
  link: LinkParameters,
  now = Date.now(),
): Promise<Result<Release>> {
  const expires = Number(link.expires);
  const licenceId = Number(link.licence);
  let genuine = false;
  try {
    genuine =
      Number.isSafeInteger(expires) &&
      Number.isSafeInteger(licenceId) &&
      link.signature !== null &&
      (await signer.verify(linkBytes(id, licenceId, expires), fromBase64Url(link.signature)));
  } catch {
    genuine = false;
  }
  if (!genuine) return fail("forbidden", "This download link is not valid");
  if (expires <= now) return fail("forbidden", "This download link has expired; ask for the latest release again");
  return openRelease(db, bucket, await licenceHolder(db, { id: licenceId }, now), id, catalogue);
}

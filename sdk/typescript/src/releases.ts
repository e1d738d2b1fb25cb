// The program's auto-update: the release a verified answer of POST /api/v1/releases/latest offers,
// and its download, believed only when the bytes hash to the signed SHA-256. The bytes stream
// through an incremental SHA-256 (@noble/hashes, audited) into a target the program provides (a
// file, in Node), never gathered in memory; a download cut off resumes with `Range`.
import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex } from "@noble/hashes/utils.js";
import type { CheckResult } from "./licence-client.ts";

export type ReleaseChannel = "stable" | "beta";

/** The entitlement a channel needs (decision 055). */
export const CHANNEL_ENTITLEMENT: Record<ReleaseChannel, string | null> = { stable: null, beta: "beta" };

/** A release the shop offers this licence, from a verified answer. */
export interface Release {
  version: string;
  channel: ReleaseChannel;
  notes: string;
  fileName: string;
  size: number;
  /** 64 lowercase hex digits: what downloadRelease checks the bytes against. */
  sha256: string;
  publishedAt: string;
  /** A link signed by the shop, needing no session, until urlExpiresAt (15 minutes). */
  url: string;
  urlExpiresAt: string;
}

export type LatestReleaseError =
  "no-release" | "up-to-date" | "channel-not-allowed" | "denied" | "offline" | "tampered" | "malformed" | "invalid-request";

/** The licence's verdict (checked as every check is) and the release offered, or why there is none. */
export type LatestReleaseResult = { licence: CheckResult; message: string } & (
  { release: Release; error: null } | { release: null; error: LatestReleaseError }
);

const isRelease = (value: unknown, channel: ReleaseChannel): value is Release => {
  const release = value as Partial<Release> | null;
  return (
    typeof release === "object" &&
    release !== null &&
    typeof release.version === "string" &&
    release.channel === channel &&
    typeof release.size === "number" &&
    release.size >= 0 &&
    typeof release.sha256 === "string" &&
    /^[0-9a-f]{64}$/.test(release.sha256) &&
    typeof release.url === "string" &&
    release.url !== "" &&
    typeof release.urlExpiresAt === "string"
  );
};

const refused = (licence: CheckResult, error: LatestReleaseError, message = licence.message): LatestReleaseResult => ({
  licence,
  release: null,
  error,
  message,
});

/**
 * What a judged answer to releases/latest for `channel` offers: the licence's own refusals first,
 * then the channel echoed (a genuine answer about another channel, kept by a proxy with this
 * call's nonce, is tampered), then the release.
 */
export function releaseVerdict(
  judged: CheckResult,
  channel: ReleaseChannel,
  tamper: (message: string) => CheckResult,
  currentVersion?: string,
): LatestReleaseResult {
  if (judged.outcome === "offline" || judged.outcome === "tampered" || judged.outcome === "invalid-request")
    return refused(judged, judged.outcome);
  const body = judged.answer as unknown as { channel?: unknown; release?: unknown };
  if (body.channel !== channel) return refused(tamper("The licence server's answer was about another release channel."), "tampered");
  if (judged.outcome === "denied") return refused(judged, "denied");
  if (body.release === null || body.release === undefined) {
    const needs = CHANNEL_ENTITLEMENT[channel];
    if (needs !== null && !judged.hasEntitlement(needs))
      return refused(judged, "channel-not-allowed", `This licence's plan does not include the ${channel} channel.`);
    return refused(judged, "no-release", `No release is published on the ${channel} channel for this licence.`);
  }
  if (!isRelease(body.release, channel)) return refused(judged, "malformed", "The licence server's release could not be read.");
  if (currentVersion && compareVersions(body.release.version, currentVersion) <= 0)
    return refused(judged, "up-to-date", `Version ${body.release.version} is the newest: this program is up to date.`);
  return { licence: judged, release: body.release, error: null, message: `Version ${body.release.version} is available.` };
}

const SEMVER = /^[vV]?(\d+)\.(\d+)\.(\d+)(?:-([0-9A-Za-z.-]+))?(?:\+[0-9A-Za-z.-]+)?$/;

/** Two identifiers in semantic-version order: numbers by value and before words. */
function compareIdentifiers(a: string, b: string): number {
  const numeric = (text: string) => /^\d+$/.test(text);
  if (numeric(a) && numeric(b)) return a.length !== b.length ? a.length - b.length : a < b ? -1 : a > b ? 1 : 0;
  if (numeric(a) !== numeric(b)) return numeric(a) ? -1 : 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * Negative, zero or positive as version `a` comes before, with or after `b`, in semantic-version
 * order as the shop orders its releases (1.10.0 after 1.9.0, 2.0.0-beta.2 before 2.0.0); versions
 * that are not semantic compare as text. The C++ SDK orders them the same way.
 */
export function compareVersions(a: string, b: string): number {
  const left = SEMVER.exec(a);
  const right = SEMVER.exec(b);
  if (!left || !right) return a < b ? -1 : a > b ? 1 : 0;
  for (const i of [1, 2, 3]) {
    const order = compareIdentifiers(left[i]!.replace(/^0+(?=\d)/, ""), right[i]!.replace(/^0+(?=\d)/, ""));
    if (order !== 0) return order;
  }
  // A pre-release comes before its release.
  if (!left[4] !== !right[4]) return left[4] ? -1 : 1;
  const [l, r] = [left[4]?.split(".") ?? [], right[4]?.split(".") ?? []];
  for (let i = 0; i < Math.min(l.length, r.length); i++) {
    const order = compareIdentifiers(l[i]!, r[i]!);
    if (order !== 0) return order;
  }
  return l.length - r.length;
}

/** Where a download goes: the program's file (in Node: a ".part" file renamed into place). */
export interface DownloadTarget {
  /** The bytes kept from an earlier attempt, in order (empty for a fresh start): hashed again, then continued. */
  saved(): AsyncIterable<Uint8Array>;
  /** Appends bytes. */
  write(chunk: Uint8Array): Promise<void>;
  /** Drops everything written (a restart, or bytes that failed the check). */
  discard(): Promise<void>;
  /** Makes the download the file: called only once its SHA-256 matched. */
  commit(): Promise<void>;
}

export type DownloadError = "unreachable" | "status" | "too-large" | "checksum";

export type DownloadResult =
  | { ok: true; status: number; resumedFrom: number }
  | { ok: false; error: DownloadError; message: string; status: number | null; resumedFrom: number };

/** Compares two equal-length hex digests without stopping at the first difference. */
function sameDigest(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let difference = 0;
  for (let i = 0; i < a.length; i++) difference |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return difference === 0;
}

/**
 * Downloads `release` into `target`, resuming from what it kept, and commits it only when the
 * bytes hash to the signed SHA-256 (discarding them otherwise). A transfer cut off keeps its bytes
 * for the next attempt.
 */
export async function downloadRelease(
  release: Release,
  target: DownloadTarget,
  options: { fetch?: (request: Request) => Promise<Response> } = {},
): Promise<DownloadResult> {
  let hash = sha256.create();
  let held = 0;
  for await (const chunk of target.saved()) {
    hash.update(chunk);
    held += chunk.byteLength;
  }
  if (held >= release.size && release.size > 0) {
    await target.discard();
    hash = sha256.create();
    held = 0;
  }
  const resumedFrom = held;
  const failed = (error: DownloadError, message: string, status: number | null): DownloadResult => ({
    ok: false,
    error,
    message,
    status,
    resumedFrom,
  });

  let response: Response;
  try {
    const headers = held > 0 ? { Range: `bytes=${held}-` } : undefined;
    response = await (options.fetch ?? fetch)(new Request(release.url, { headers }));
  } catch {
    return failed("unreachable", "The download server could not be reached.", null);
  }
  const start = /^bytes (\d+)-/.exec(response.headers.get("Content-Range") ?? "")?.[1];
  const continues = response.status === 206 && Number(start) === held;
  if (!(response.status === 200 || continues) || !response.body) {
    await response.body?.cancel();
    const why = response.status === 403 ? " The link may have expired: ask for the latest release again." : "";
    return failed("status", `The download server answered HTTP ${response.status}.${why}`, response.status);
  }
  // The whole file answered (the server ignored the range, or none was asked): from the start.
  if (response.status === 200 && held > 0) {
    await target.discard();
    hash = sha256.create();
    held = 0;
  }
  try {
    for await (const chunk of response.body) {
      if (held + chunk.byteLength > release.size) {
        await target.discard();
        return failed("too-large", "The download is larger than the release.", response.status);
      }
      await target.write(chunk);
      hash.update(chunk);
      held += chunk.byteLength;
    }
  } catch {
    return failed("unreachable", "The download was cut off; it resumes from here next time.", response.status);
  }
  if (held !== release.size) return failed("unreachable", "The download was cut off; it resumes from here next time.", response.status);
  if (!sameDigest(bytesToHex(hash.digest()), release.sha256)) {
    await target.discard();
    return failed("checksum", "The downloaded file is not the release the shop signed; it was removed.", response.status);
  }
  await target.commit();
  return { ok: true, status: response.status, resumedFrom };
}

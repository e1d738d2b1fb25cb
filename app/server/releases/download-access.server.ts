// Who may download a release: the one rule that every door follows (decision 082): the downloads
// page (what shows locked), the hub's Download link and the licence API's signed link. A member may
// have a release of a product only while they hold a live licence of that product whose
// entitlements include everything the release needs; staff by the releases.manage capability.
// The chat's product rooms ask the same rule who holds a live licence of a product (decision 094).
import { and, eq, getTableColumns, inArray, type SQL, sql } from "drizzle-orm";
import { LICENCE_PLANS, type LicencePlan } from "~/lib/plans";
import { type Locked, lockedReason, releaseNeeds, SUBSCRIPTION_REQUIRED } from "~/lib/releases";
import { can } from "~/lib/roles";
import type { Viewer } from "~/lib/viewer";
import type { EntitlementRow } from "../catalogue/entitlements.server";
import { licenceState, ownerBanned } from "../licences/validation.server";
import type { Db } from "../platform/db/client.server";
import { licences, type releases } from "../platform/db/schema.server";

type Release = typeof releases.$inferSelect;

/** A live licence as the rule reads it. */
interface HeldLicence {
  id: number;
  product: string;
  entitlements: string[];
}

/** Who asks: staff who manage releases, or a member with the live licences they hold (or the one a link names). */
export type Downloader = { kind: "staff" } | { kind: "member"; licences: HeldLicence[] };

const heldLicence = { ...getTableColumns(licences), ownerBanned };
type LicenceRow = typeof licences.$inferSelect & { ownerBanned: number };

/**
 * Live: sold and paid (a licence exists only for a sale), not revoked (a refund or cancellation
 * revokes it), not banned (the key, or its owner's account), not paused, not expired. A key bought
 * but not yet activated is live: its buyer downloads the program that activates it.
 */
function isLive(row: LicenceRow, now: number): boolean {
  const state = licenceState(row, now);
  return !row.ownerBanned && (state === "active" || state === "not-activated");
}

async function liveLicences(db: Db, where: SQL, now: number): Promise<HeldLicence[]> {
  const rows = await db.select(heldLicence).from(licences).where(where);
  return rows.filter((row) => isLive(row, now)).map(({ id, product, entitlements }) => ({ id, product, entitlements }));
}

/** The signed-in account as the rule sees it: staff by capability (being staff is not enough), else its live licences. */
export async function downloaderOf(db: Db, viewer: Viewer, now = Date.now()): Promise<Downloader> {
  if (can(viewer.role, "releases.manage")) return { kind: "staff" };
  return { kind: "member", licences: await liveLicences(db, sql`lower(${licences.ownerEmail}) = lower(${viewer.email})`, now) };
}

/** The holder of one licence (the program's key, or the one a signed link was issued for): it, while live. */
export async function licenceHolder(
  db: Db,
  licence: { id: number } | { key: string },
  now = Date.now(),
): Promise<Downloader & { kind: "member" }> {
  const where = "id" in licence ? eq(licences.id, licence.id) : eq(licences.key, licence.key);
  return { kind: "member", licences: await liveLicences(db, where, now) };
}

/** Emails per query: D1 binds at most 100 values to a statement. */
const EMAILS_PER_QUERY = 90;

/**
 * Which of `emails` hold a live licence of `product` (by the rule above), each with when that
 * stops by itself: the latest end among their live licences of it, null when one has no set end
 * (a lifetime plan, or a timed one not activated yet). Addresses come back in lower case.
 */
export async function liveHoldersOf(db: Db, emails: string[], product: string, now = Date.now()): Promise<Map<string, number | null>> {
  const lower = [...new Set(emails.map((email) => email.toLowerCase()))];
  const holders = new Map<string, number | null>();
  for (let i = 0; i < lower.length; i += EMAILS_PER_QUERY) {
    const rows = await db
      .select(heldLicence)
      .from(licences)
      .where(and(eq(licences.product, product), inArray(sql`lower(${licences.ownerEmail})`, lower.slice(i, i + EMAILS_PER_QUERY))));
    for (const row of rows.filter((row) => isLive(row, now))) {
      const email = row.ownerEmail.toLowerCase();
      const known = holders.get(email);
      const end = row.expiresAt;
      holders.set(email, known === undefined ? end : known === null || end === null ? null : Math.max(known, end));
    }
  }
  return holders;
}

/** The products `email` holds a live licence of, by the rule above. */
export async function liveProductsOf(db: Db, email: string, now = Date.now()): Promise<Set<string>> {
  const held = await liveLicences(db, sql`lower(${licences.ownerEmail}) = lower(${email})`, now);
  return new Set(held.map((licence) => licence.product));
}

/** What a downloader lacks for a release: a live licence of its product (`product`), entitlements. */
export interface Lack {
  product: string | null;
  entitlements: string[];
}

/**
 * The rule: null when `downloader` may have `release`, otherwise what they lack. One licence must
 * include all the release needs (its channel's entitlement and its own): two licences do not add up.
 */
export function lackFor(downloader: Downloader, release: Pick<Release, "product" | "channel" | "entitlement">): Lack | null {
  if (downloader.kind === "staff") return null;
  const needs = releaseNeeds(release);
  const ofProduct = downloader.licences.filter((licence) => licence.product === release.product);
  if (ofProduct.length === 0) return { product: release.product, entitlements: needs };
  const [fewest] = ofProduct
    .map((licence) => needs.filter((name) => !licence.entitlements.includes(name)))
    .sort((a, b) => a.length - b.length);
  return fewest && fewest.length > 0 ? { product: null, entitlements: fewest } : null;
}

/** Staff may also fetch a finished release before publishing it, to check it; members only published ones. */
export const visibleTo = (downloader: Downloader, release: Pick<Release, "state">) =>
  release.state === "published" || (downloader.kind === "staff" && release.state === "ready");

/**
 * A lack in words, with what to buy: the plans of the product (`productPlans`, from the catalogue;
 * every plan when the catalogue does not list it) that include every entitlement missing.
 */
export function lockedFor(lack: Lack, defined: EntitlementRow[], productPlans: readonly LicencePlan[] | undefined): Locked {
  const byName = new Map(defined.map((entitlement) => [entitlement.name, entitlement]));
  const plans = (productPlans ?? LICENCE_PLANS).filter((plan) => lack.entitlements.every((name) => byName.get(name)?.plans.includes(plan)));
  return { product: lack.product, needs: lack.entitlements.map((name) => byName.get(name)?.label ?? name), plans };
}

/** The refusal of a download: the sentence members know from the downloads page, then what is missing and what to buy. */
export const refusalMessage = (locked: Locked) => `${SUBSCRIPTION_REQUIRED}. ${lockedReason(locked)}.`;

// Licences as the hub's pages see them: what the licences domain hands a member or an admin, and
// the words a licence's state is read in. Shared with the browser, so the types live here.
import { type LicencePlan, PLAN_TERM } from "./plans";

export type LicenceState = "not-activated" | "active" | "paused" | "suspended" | "expired" | "revoked" | "banned";

export const LICENCE_STATE_LABEL: Record<LicenceState, string> = {
  "not-activated": "Not activated",
  active: "Active",
  paused: "Paused",
  suspended: "Suspended",
  expired: "Expired",
  revoked: "Revoked",
  banned: "Banned",
};

export interface LicenceView {
  id: number;
  key: string;
  product: string;
  plan: LicencePlan;
  state: LicenceState;
  activatedAt: number | null;
  /** While paused, the expiry as it stood when the pause began: resuming pushes it out. */
  expiresAt: number | null;
  /** When staff paused it; null while it runs. */
  pausedAt: number | null;
  /** Why the shop's fraud rules suspended it (a disputed payment, a shared key); null otherwise. */
  suspendReason?: string | null;
  /** The bound PC: shortened for the owner, whole for an admin; null when no PC is bound. */
  hwid: string | null;
  /** The bound PC's name as its program reports it; null when none was sent or no PC is bound. */
  device: string | null;
  lastCheckAt: number | null;
  lastCheckPlace: string | null;
  resets: { at: number; by: "owner" | "admin" }[];
  /** When the owner may reset the PC next (also while none is bound); null when they may now. */
  nextOwnerResetAt: number | null;
  /** What the licence grants, in the plan card's words ("Beta Access"), by name. */
  entitlements: { name: string; label: string }[];
}

/** Time added to every running licence of a product (or one plan) after downtime, and to how many. */
export interface Compensation {
  id: string;
  product: string;
  plan: LicencePlan | null;
  days: number;
  reason: string;
  licenceCount: number | null;
  createdAt: number;
}

export interface AdminLicenceView extends LicenceView {
  ownerEmail: string;
  orderId: string | null;
  /** The order's name as its buyer knows it ("#1001"), else the id itself. */
  orderName: string | null;
  banReason: string | null;
  hwidBan: { reason: string; bannedAt: number } | null;
  /** The owner's account is banned: the key answers BANNED until the account is unbanned. */
  ownerBan: { reason: string | null; bannedAt: number } | null;
}

/**
 * What a key that was never used is waiting for: a timed plan's clock starts at the first check,
 * a lifetime key only waits for its PC.
 */
export function notActivatedText(plan: LicencePlan): string {
  return `Not activated — ${firstUseText(plan)}`;
}

/** What happens at a key's first use: "7 days from first use", or for lifetime its binding. */
export function firstUseText(plan: LicencePlan): string {
  return plan === "lifetime" ? "binds to the first PC that uses it" : `${PLAN_TERM[plan]} from first use`;
}

/** Whether the owner's Reset PC belongs on the licence at all: a revoked, banned or paused key stays put. */
export function ownerCanReset(licence: Pick<LicenceView, "state">): boolean {
  return licence.state !== "revoked" && licence.state !== "banned" && licence.state !== "paused";
}

/** What is left of a paused licence's time, frozen at the pause; null for a key whose clock never started. */
export function pausedTimeLeft(licence: Pick<LicenceView, "pausedAt" | "expiresAt">): number | null {
  return licence.pausedAt === null || licence.expiresAt === null ? null : Math.max(0, licence.expiresAt - licence.pausedAt);
}

/** Enough of a key to tell it apart on the phone with a customer, not enough to use it. */
export function maskKey(key: string): string {
  const shown = key.length >= 12 ? 4 : key.length >= 6 ? 2 : 1;
  return `${key.slice(0, shown)}…${key.slice(-shown)}`;
}

// The dashboard's sidebar as data: the member's pages, the staff pages in their groups with the
// capability each needs, and what the shell shows a viewer. The shell's loader hands it to the
// page; a refused staff page carries it in its 403 (app/http/refusals.server.ts), so the sidebar
// stays around the refusal. A new staff page is one entry in STAFF_PAGES, naming its group.
import { isRecordKind, QUICK_JUMP_LIMIT, type QuickJumpHit, quickJumpKindsFor, type RecordKind } from "./quick-jump";
import { can, type Capability, type Role } from "./roles";
import type { Viewer } from "./viewer";

export interface DashboardPage {
  to: string;
  label: string;
  /** Current only on this very path, not on the paths under it (the dashboard's home). */
  end?: boolean;
}

/** Every signed-in account's own pages: first in the sidebar, in one short list. */
export const HUB_PAGES: readonly DashboardPage[] = [
  { to: "/dashboard", label: "Dashboard", end: true },
  { to: "/dashboard/subscriptions", label: "Subscriptions" },
  { to: "/dashboard/downloads", label: "Downloads" },
  { to: "/dashboard/resell", label: "Resell Panel" },
  { to: "/dashboard/crypto-tracker", label: "Crypto Tracker" },
  { to: "/dashboard/affiliate", label: "Affiliate" },
  { to: "/dashboard/2fa", label: "Two-Factor Auth" },
  { to: "/dashboard/security", label: "Security" },
];

/**
 * The back office's groups, in the sidebar's order: the sections shop admins know from their
 * e-commerce admin (orders and customers, products, marketing, settings), in this shop's words.
 */
export const STAFF_GROUPS = [
  { id: "sales", label: "Sales" },
  { id: "keys", label: "Keys & licences" },
  { id: "catalogue", label: "Catalogue & releases" },
  { id: "community", label: "Community" },
  { id: "settings", label: "Settings" },
] as const;
export type StaffGroupId = (typeof STAFF_GROUPS)[number]["id"];

export interface StaffPage extends DashboardPage {
  capability: Capability;
  group: StaffGroupId;
}

export const STAFF_PAGES: readonly StaffPage[] = [
  { to: "/dashboard/orders", label: "Orders", capability: "orders.view", group: "sales" },
  { to: "/dashboard/customers", label: "Customers", capability: "customers.view", group: "sales" },
  { to: "/dashboard/sales", label: "Sales", capability: "sales.view", group: "sales" },
  { to: "/dashboard/disputes", label: "Disputes", capability: "disputes.view", group: "sales" },
  { to: "/dashboard/manage-codes", label: "Manage Codes", capability: "stock.manage", group: "keys" },
  { to: "/dashboard/licences", label: "Licences", capability: "licences.reset", group: "keys" },
  { to: "/dashboard/replacements", label: "Replacements", capability: "replacements.decide", group: "keys" },
  { to: "/dashboard/blocklists", label: "Blocklists", capability: "blocks.view", group: "keys" },
  { to: "/dashboard/licences-at-risk", label: "Licences at risk", capability: "risk.view", group: "keys" },
  { to: "/dashboard/releases", label: "Releases", capability: "releases.manage", group: "catalogue" },
  { to: "/dashboard/entitlements", label: "Entitlements", capability: "entitlements.manage", group: "catalogue" },
  { to: "/dashboard/promotions", label: "Promotions", capability: "promotions.manage", group: "catalogue" },
  { to: "/dashboard/affiliates", label: "Affiliates", capability: "affiliates.view", group: "community" },
  { to: "/dashboard/reviews", label: "Reviews", capability: "reviews.moderate", group: "community" },
  { to: "/dashboard/chat-moderation", label: "Chat Moderation", capability: "chat.moderate", group: "community" },
  { to: "/dashboard/discord", label: "Discord", capability: "discord.manage", group: "community" },
  { to: "/dashboard/legal", label: "Legal Pages", capability: "legal.edit", group: "settings" },
  { to: "/dashboard/audit", label: "Audit Log", capability: "audit.view", group: "settings" },
  { to: "/dashboard/health", label: "Health", capability: "health.view", group: "settings" },
];

/** Whether `page` is the one at `pathname` (a record's page under a list counts as the list's). */
export function isCurrentPage(page: DashboardPage, pathname: string): boolean {
  return page.end ? pathname === page.to : pathname === page.to || pathname.startsWith(`${page.to}/`);
}

/** What the shell shows a viewer: their e-mail, the staff pages their role may open, what the quick jump finds for them. */
export interface DashboardShell {
  email: string;
  staffLinks: string[];
  quickJump: RecordKind[];
}

/** Only the staff pages this role may open: each page's own guard enforces the same rule. */
export function dashboardShell(viewer: Pick<Viewer, "email" | "role">): DashboardShell {
  return { email: viewer.email, staffLinks: staffPagesFor(viewer.role).map(({ to }) => to), quickJump: quickJumpKindsFor(viewer.role) };
}

export function staffPagesFor(role: Role | null) {
  return STAFF_PAGES.filter((page) => can(role, page.capability));
}

/** The staff pages among `staffLinks`, by group in the sidebar's order; a group with none of them is left out. */
export function staffNavigation(staffLinks: readonly string[]) {
  return STAFF_GROUPS.map((group) => ({
    ...group,
    pages: STAFF_PAGES.filter((page) => page.group === group.id && staffLinks.includes(page.to)),
  })).filter((group) => group.pages.length > 0);
}

/** The dashboard's pages `role` may open whose name holds `q` (any case): the quick jump's way to a page. */
export function pagesMatching(role: Role | null, q: string): QuickJumpHit[] {
  const words = q.trim().toLowerCase();
  if (words === "") return [];
  return [
    ...HUB_PAGES.map((page) => ({ page, group: "Your hub" })),
    ...staffPagesFor(role).map((page) => ({ page, group: groupLabel(page.group) })),
  ]
    .filter(({ page }) => page.label.toLowerCase().includes(words))
    .slice(0, QUICK_JUMP_LIMIT)
    .map(({ page, group }) => ({
      kind: "page",
      label: page.label,
      detail: group,
      href: page.to,
      exact: page.label.toLowerCase() === words,
    }));
}

const groupLabel = (id: StaffGroupId) => STAFF_GROUPS.find((group) => group.id === id)!.label;

const isStrings = (value: unknown): value is string[] => Array.isArray(value) && value.every((item) => typeof item === "string");

/** The shell a refusal carries, if `value` is one (it comes back from the server as plain data). */
export function asDashboardShell(value: unknown): DashboardShell | null {
  if (typeof value !== "object" || value === null) return null;
  const { email, staffLinks, quickJump } = value as Record<string, unknown>;
  return typeof email === "string" && isStrings(staffLinks) && isStrings(quickJump)
    ? { email, staffLinks, quickJump: quickJump.filter(isRecordKind) }
    : null;
}

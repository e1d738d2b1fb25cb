// The dashboard's sidebar as data: the staff pages, the capability each needs, and what the shell
// shows a viewer. The shell's loader hands it to the page; a refused staff page carries it in its
// 403 (app/http/refusals.server.ts), so the sidebar stays around the refusal.
import { can, type Capability, type Role } from "./roles";
import type { Viewer } from "./viewer";

export const STAFF_PAGES: readonly { to: string; label: string; capability: Capability }[] = [
  { to: "/dashboard/orders", label: "Orders", capability: "orders.view" },
  { to: "/dashboard/customers", label: "Customers", capability: "customers.view" },
  { to: "/dashboard/sales", label: "Sales", capability: "sales.view" },
  { to: "/dashboard/manage-codes", label: "Manage Codes", capability: "stock.manage" },
  { to: "/dashboard/licences", label: "Licences", capability: "licences.reset" },
  { to: "/dashboard/replacements", label: "Replacements", capability: "replacements.decide" },
  { to: "/dashboard/releases", label: "Releases", capability: "releases.manage" },
  { to: "/dashboard/entitlements", label: "Entitlements", capability: "entitlements.manage" },
  { to: "/dashboard/affiliates", label: "Affiliates", capability: "affiliates.view" },
  { to: "/dashboard/reviews", label: "Reviews", capability: "reviews.moderate" },
  { to: "/dashboard/promotions", label: "Promotions", capability: "promotions.manage" },
  { to: "/dashboard/legal", label: "Legal Pages", capability: "legal.edit" },
  { to: "/dashboard/discord", label: "Discord", capability: "discord.manage" },
  { to: "/dashboard/audit", label: "Audit Log", capability: "audit.view" },
];

/** What the shell shows a viewer: their e-mail and the staff pages their role may open. */
export interface DashboardShell {
  email: string;
  staffLinks: string[];
}

/** Only the staff pages this role may open: each page's own guard enforces the same rule. */
export function dashboardShell(viewer: Pick<Viewer, "email" | "role">): DashboardShell {
  return { email: viewer.email, staffLinks: staffPagesFor(viewer.role).map(({ to }) => to) };
}

function staffPagesFor(role: Role | null) {
  return STAFF_PAGES.filter((page) => can(role, page.capability));
}

/** The shell a refusal carries, if `value` is one (it comes back from the server as plain data). */
export function asDashboardShell(value: unknown): DashboardShell | null {
  if (typeof value !== "object" || value === null) return null;
  const { email, staffLinks } = value as Record<string, unknown>;
  return typeof email === "string" && Array.isArray(staffLinks) && staffLinks.every((link) => typeof link === "string") ? { email, staffLinks } : null;
}

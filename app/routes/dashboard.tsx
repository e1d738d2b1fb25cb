// The members' area shell: sidebar navigation around every /dashboard page. Its middleware
// sends signed-out visitors to /auth before any dashboard loader or action runs.
import {
  Bitcoin,
  ChartColumn,
  CreditCard,
  Download,
  FileKey,
  KeyRound,
  LayoutDashboard,
  Lock,
  LogOut,
  ReceiptText,
  ScrollText,
  Shield,
  ShieldCheck,
  Store,
  Users,
} from "~/components/icons";
import { useEffect, useRef } from "react";
import { Form, NavLink, Outlet, useLocation } from "react-router";
import { currentViewer, requireUser } from "~/http/guards.server";
import { type Capability, can, ROLE_LABEL } from "~/lib/roles";
import type { Route } from "./+types/dashboard";

export const middleware: Route.MiddlewareFunction[] = [requireUser];

export function loader({ context }: Route.LoaderArgs) {
  const { email, role } = currentViewer(context);
  // Only the staff pages this role may open: each page's own guard enforces the same rule.
  const staffLinks = STAFF_LINKS.filter((link) => can(role, link.capability)).map(({ to }) => to);
  return { email, staffLinks, roleLabel: role ? ROLE_LABEL[role] : null };
}

export const meta: Route.MetaFunction = () => [{ name: "robots", content: "noindex" }];

const LINKS = [
  { to: "/dashboard", label: "Dashboard", icon: LayoutDashboard, end: true },
  { to: "/dashboard/subscriptions", label: "Subscriptions", icon: CreditCard },
  { to: "/dashboard/downloads", label: "Downloads", icon: Download },
  { to: "/dashboard/resell", label: "Resell Panel", icon: Store },
  { to: "/dashboard/crypto-tracker", label: "Crypto Tracker", icon: Bitcoin },
  { to: "/dashboard/2fa", label: "Two-Factor Auth", icon: KeyRound },
  { to: "/dashboard/security", label: "Security", icon: Lock },
];

const STAFF_LINKS: { to: string; label: string; icon: typeof Shield; capability: Capability }[] = [
  { to: "/dashboard/orders", label: "Orders", icon: ReceiptText, capability: "orders.view" },
  { to: "/dashboard/customers", label: "Customers", icon: Users, capability: "customers.view" },
  { to: "/dashboard/sales", label: "Sales", icon: ChartColumn, capability: "sales.view" },
  { to: "/dashboard/manage-codes", label: "Manage Codes", icon: Shield, capability: "stock.manage" },
  { to: "/dashboard/licences", label: "Licences", icon: FileKey, capability: "licences.reset" },
  { to: "/dashboard/audit", label: "Audit Log", icon: ScrollText, capability: "audit.view" },
];

/**
 * On narrow screens the navigation is one row that scrolls sideways: the current page's tab is
 * scrolled into the row's view on load and after every navigation (the page itself stays put).
 */
function useActiveTabInView() {
  const navRef = useRef<HTMLElement>(null);
  const { pathname } = useLocation();
  useEffect(() => {
    const nav = navRef.current;
    const active = nav?.querySelector<HTMLElement>('[aria-current="page"]');
    if (!nav || !active || nav.scrollWidth <= nav.clientWidth) return;
    const start = active.getBoundingClientRect().left - nav.getBoundingClientRect().left + nav.scrollLeft;
    const centred = start - (nav.clientWidth - active.offsetWidth) / 2;
    nav.scrollTo({ left: Math.max(0, centred), behavior: "instant" });
  }, [pathname]);
  return navRef;
}

export default function DashboardLayout({ loaderData }: Route.ComponentProps) {
  const navRef = useActiveTabInView();
  const linkClass = ({ isActive }: { isActive: boolean }) =>
    `flex shrink-0 items-center gap-3 rounded-md px-3 py-2 text-sm font-medium whitespace-nowrap transition-colors ${
      isActive ? "bg-accent/15 text-accent" : "text-zinc-300 hover:bg-panel-2 hover:text-white"
    }`;
  return (
    <div className="mx-auto flex min-h-[calc(100dvh-4rem)] max-w-7xl flex-col lg:flex-row">
      <aside className="border-b border-line lg:sticky lg:top-16 lg:flex lg:h-[calc(100dvh-4rem)] lg:w-64 lg:shrink-0 lg:flex-col lg:border-r lg:border-b-0">
        <nav
          ref={navRef}
          aria-label="Dashboard"
          className="flex gap-1 overflow-x-auto overscroll-x-contain p-3 lg:flex-1 lg:flex-col lg:overflow-visible"
        >
          {LINKS.map(({ to, label, icon: Icon, end }) => (
            <NavLink key={to} to={to} end={end} className={linkClass}>
              <Icon className="size-4" aria-hidden /> {label}
            </NavLink>
          ))}
          {STAFF_LINKS.filter(({ to }) => loaderData.staffLinks.includes(to)).map(({ to, label, icon: Icon }) => (
            <NavLink key={to} to={to} className={linkClass}>
              <Icon className="size-4" aria-hidden /> {label}
              <ShieldCheck className="ml-auto size-4 text-accent" aria-label={`${loaderData.roleLabel ?? "Staff"} only`} />
            </NavLink>
          ))}
        </nav>
        <div className="hidden border-t border-line p-4 lg:block">
          <p className="truncate text-xs text-muted" title={loaderData.email}>
            {loaderData.email}
          </p>
          <Form method="post" action="/auth/logout" className="mt-2">
            <button type="submit" className="flex w-full items-center gap-2 rounded-md px-3 py-2 text-sm text-zinc-300 hover:bg-panel-2 hover:text-white">
              <LogOut className="size-4" aria-hidden /> Logout
            </button>
          </Form>
        </div>
      </aside>
      <div className="min-w-0 flex-1 p-4 sm:p-6 lg:p-8">
        <Outlet />
      </div>
    </div>
  );
}

// The dashboard's shell: sidebar navigation around every /dashboard page, the hub's and the back
// office's. The shell route draws it around its pages; the root error boundary draws it around a
// refused staff page, from the shell the refusal carries.
import { type ReactNode, useEffect, useRef, useState } from "react";
import { Form, NavLink, useLocation } from "react-router";
import { type DashboardShell as DashboardShellData, STAFF_PAGES } from "~/lib/dashboard";
import { CAPABILITIES, type Capability, type Role, ROLE_LABEL } from "~/lib/roles";
import {
  BadgeCheck,
  BadgePercent,
  Bitcoin,
  ChartColumn,
  ChevronDown,
  CreditCard,
  Download,
  FileKey,
  History,
  KeyRound,
  LayoutDashboard,
  Lock,
  LogOut,
  MessageCircle,
  Package,
  ReceiptText,
  ScrollText,
  Shield,
  ShieldCheck,
  Store,
  Users,
} from "./icons";

const LINKS = [
  { to: "/dashboard", label: "Dashboard", icon: LayoutDashboard, end: true },
  { to: "/dashboard/subscriptions", label: "Subscriptions", icon: CreditCard },
  { to: "/dashboard/downloads", label: "Downloads", icon: Download },
  { to: "/dashboard/resell", label: "Resell Panel", icon: Store },
  { to: "/dashboard/crypto-tracker", label: "Crypto Tracker", icon: Bitcoin },
  { to: "/dashboard/affiliate", label: "Affiliate", icon: BadgePercent },
  { to: "/dashboard/2fa", label: "Two-Factor Auth", icon: KeyRound },
  { to: "/dashboard/security", label: "Security", icon: Lock },
];

const STAFF_ICON: Record<string, typeof Shield> = {
  "/dashboard/orders": ReceiptText,
  "/dashboard/customers": Users,
  "/dashboard/sales": ChartColumn,
  "/dashboard/manage-codes": Shield,
  "/dashboard/licences": FileKey,
  "/dashboard/replacements": History,
  "/dashboard/releases": Package,
  "/dashboard/entitlements": BadgeCheck,
  "/dashboard/audit": ScrollText,
  "/dashboard/affiliates": BadgePercent,
  "/dashboard/legal": ScrollText,
  "/dashboard/discord": MessageCircle,
};

/** What a staff page's shield says: who may open it, in words true for every viewer who sees it. */
function staffBadge(capability: Capability): string {
  const roles = CAPABILITIES[capability] as readonly Role[];
  return roles.length === 1 ? `${ROLE_LABEL[roles[0]!]}s only` : "Staff only";
}

const NAV_ID = "dashboard-nav";

/**
 * On phones and tablets the navigation folds into a menu under a button naming the current page;
 * it closes on every navigation and on Escape, and gives the focus back to its button.
 */
function useFoldedMenu() {
  const [open, setOpen] = useState(false);
  const buttonRef = useRef<HTMLButtonElement>(null);
  const { pathname } = useLocation();
  useEffect(() => setOpen(false), [pathname]);
  useEffect(() => {
    if (!open) return;
    const onKey = (event: KeyboardEvent) => {
      if (event.key !== "Escape") return;
      setOpen(false);
      buttonRef.current?.focus();
    };
    document.addEventListener("keydown", onKey);
    return () => document.removeEventListener("keydown", onKey);
  }, [open]);
  return { open, toggle: () => setOpen((v) => !v), buttonRef };
}

/** The sidebar (a folded menu on small screens) around a dashboard page. */
export function DashboardShell({ email, staffLinks, children }: DashboardShellData & { children: ReactNode }) {
  const menu = useFoldedMenu();
  const { pathname } = useLocation();
  const staff = STAFF_PAGES.filter(({ to }) => staffLinks.includes(to)).map((page) => ({ ...page, icon: STAFF_ICON[page.to] ?? Shield }));
  const current = [...LINKS, ...staff].find(({ to, end }: { to: string; end?: boolean }) => (end ? pathname === to : pathname === to || pathname.startsWith(`${to}/`)));
  const linkClass = ({ isActive }: { isActive: boolean }) =>
    `flex items-center gap-3 rounded-md px-3 py-2.5 text-sm font-medium transition-colors lg:py-2 ${
      isActive ? "bg-accent/15 text-accent" : "text-zinc-300 hover:bg-panel-2 hover:text-white"
    }`;
  return (
    <div className="mx-auto flex min-h-[calc(100dvh-4rem)] max-w-7xl flex-col lg:flex-row">
      <aside className="border-b border-line lg:sticky lg:top-16 lg:flex lg:h-[calc(100dvh-4rem)] lg:w-64 lg:shrink-0 lg:flex-col lg:border-r lg:border-b-0">
        <button
          ref={menu.buttonRef}
          type="button"
          aria-expanded={menu.open}
          aria-controls={NAV_ID}
          onClick={menu.toggle}
          className="flex w-full items-center gap-3 px-4 py-3 text-left text-sm font-semibold lg:hidden"
        >
          {current ? <current.icon className="size-4 text-accent" aria-hidden /> : null}
          <span className="min-w-0 flex-1 truncate">
            <span className="sr-only">Dashboard menu, </span>
            {current?.label ?? "Dashboard"}
          </span>
          <ChevronDown className={`size-4 text-muted transition-transform ${menu.open ? "rotate-180" : ""}`} aria-hidden />
        </button>
        <div id={NAV_ID} className={`${menu.open ? "flex" : "hidden"} flex-col border-t border-line lg:flex lg:flex-1 lg:border-t-0`}>
          <nav aria-label="Dashboard" className="flex flex-col gap-1 p-3 lg:flex-1 lg:overflow-y-auto">
            {LINKS.map(({ to, label, icon: Icon, end }) => (
              <NavLink key={to} to={to} end={end} className={linkClass}>
                <Icon className="size-4" aria-hidden /> {label}
              </NavLink>
            ))}
            {staff.length > 0 ? (
              <p className="mt-3 px-3 text-xs font-semibold tracking-wider text-muted uppercase" aria-hidden>
                Staff
              </p>
            ) : null}
            {staff.map(({ to, label, icon: Icon, capability }) => (
              <NavLink key={to} to={to} className={linkClass}>
                <Icon className="size-4" aria-hidden /> {label}
                <ShieldCheck className="ml-auto size-4 text-accent" aria-label={staffBadge(capability)} />
              </NavLink>
            ))}
          </nav>
          <div className="border-t border-line p-4">
            <p className="truncate text-xs text-muted" title={email}>
              {email}
            </p>
            <Form method="post" action="/auth/logout" className="mt-2">
              <button type="submit" className="flex w-full items-center gap-2 rounded-md px-3 py-2 text-sm text-zinc-300 hover:bg-panel-2 hover:text-white">
                <LogOut className="size-4" aria-hidden /> Logout
              </button>
            </Form>
          </div>
        </div>
      </aside>
      <div className="min-w-0 flex-1 p-4 sm:p-6 lg:p-8">{children}</div>
    </div>
  );
}

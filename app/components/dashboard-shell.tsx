// The dashboard's shell: sidebar navigation around every /dashboard page, the hub's and the back
// office's (its pages in groups, app/lib/dashboard.ts), with the staff's quick jump above it. The
// shell route draws it around its pages; the root error boundary draws it around a refused staff
// page, from the shell the refusal carries.
import { type ReactNode, useCallback, useEffect, useId, useRef, useState } from "react";
import { Form, useLocation } from "react-router";
import { NavLink } from "~/components/link";
import { asDashboardShell, type DashboardShell as DashboardShellData, HUB_PAGES, isCurrentPage, staffNavigation } from "~/lib/dashboard";
import { QUICK_JUMP_PATH } from "~/lib/quick-jump";
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
  Gavel,
  Handshake,
  Hash,
  History,
  KeyRound,
  LayoutDashboard,
  Lock,
  LogOut,
  MessageCircle,
  Package,
  Percent,
  ReceiptText,
  ScrollText,
  Search,
  Shield,
  ShieldCheck,
  Star,
  Store,
  Users,
} from "./icons";
import { CHAT_PATH_PREFIX, ChatRoomsNav } from "./chat-rooms-nav";
import { QuickJump } from "./quick-jump";

const HUB_ICON: Record<string, typeof Shield> = {
  "/dashboard": LayoutDashboard,
  "/dashboard/subscriptions": CreditCard,
  "/dashboard/downloads": Download,
  "/dashboard/resell": Store,
  "/dashboard/crypto-tracker": Bitcoin,
  "/dashboard/affiliate": BadgePercent,
  "/dashboard/2fa": KeyRound,
  "/dashboard/security": Lock,
};

// A page without an icon of its own here gets the shield: a new page needs only its entry in STAFF_PAGES.
const STAFF_ICON: Record<string, typeof Shield> = {
  "/dashboard/orders": ReceiptText,
  "/dashboard/customers": Users,
  "/dashboard/sales": ChartColumn,
  "/dashboard/manage-codes": Shield,
  "/dashboard/licences": FileKey,
  "/dashboard/replacements": History,
  "/dashboard/releases": Package,
  "/dashboard/entitlements": BadgeCheck,
  "/dashboard/promotions": Percent,
  "/dashboard/reviews": Star,
  "/dashboard/audit": ScrollText,
  "/dashboard/affiliates": Handshake,
  "/dashboard/legal": ScrollText,
  "/dashboard/discord": MessageCircle,
  "/dashboard/chat-moderation": Gavel,
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
      // A control inside the menu that used Escape itself (the quick jump's list) says so.
      if (event.key !== "Escape" || event.defaultPrevented) return;
      setOpen(false);
      buttonRef.current?.focus();
    };
    document.addEventListener("keydown", onKey);
    return () => document.removeEventListener("keydown", onKey);
  }, [open]);
  return { open, toggle: () => setOpen((v) => !v), show: useCallback(() => setOpen(true), []), buttonRef };
}

/**
 * Which staff groups are open: the current page's group opens whenever the page changes; the others
 * stay as the viewer left them.
 */
function useOpenGroups(currentGroup: string | undefined) {
  const [open, setOpen] = useState<ReadonlySet<string>>(() => new Set(currentGroup ? [currentGroup] : []));
  useEffect(() => {
    if (currentGroup) setOpen((groups) => (groups.has(currentGroup) ? groups : new Set([...groups, currentGroup])));
  }, [currentGroup]);
  const toggled = (group: string, isOpen: boolean) =>
    setOpen((groups) =>
      groups.has(group) === isOpen ? groups : new Set(isOpen ? [...groups, group] : [...groups].filter((g) => g !== group)),
    );
  return { open, toggled };
}

/**
 * Keeps the current page's link in view inside the sidebar's own scrolling list (and the phone's
 * menu once it opens), again once the chat's rooms arrive above it and push it down.
 */
function useCurrentLinkInView(pathname: string, openGroups: ReadonlySet<string>, menuOpen: boolean, roomCount: number) {
  const listRef = useRef<HTMLElement>(null);
  useEffect(() => {
    const list = listRef.current;
    const link = list?.querySelector('[aria-current="page"]');
    if (!list || !link || list.scrollHeight <= list.clientHeight) return;
    const box = list.getBoundingClientRect();
    const at = link.getBoundingClientRect();
    if (at.top < box.top || at.bottom > box.bottom) list.scrollTop += at.top - box.top - (box.height - at.height) / 2;
  }, [pathname, openGroups, menuOpen, roomCount]);
  return listRef;
}

const linkClass = ({ isActive }: { isActive: boolean }) =>
  `flex items-center gap-3 rounded-md px-3 py-2.5 text-sm font-medium transition-colors lg:py-1.5 ${
    isActive ? "bg-accent/15 text-accent" : "text-zinc-300 hover:bg-panel-2 hover:text-white"
  }`;

/** The sidebar (a folded menu on small screens) around a dashboard page. */
export function DashboardShell({ email, staffLinks, quickJump, children }: DashboardShellData & { children: ReactNode }) {
  const menu = useFoldedMenu();
  const { pathname } = useLocation();
  const groups = staffNavigation(staffLinks);
  const currentStaff = groups.flatMap((group) => group.pages).find((page) => isCurrentPage(page, pathname));
  const current = HUB_PAGES.find((page) => isCurrentPage(page, pathname)) ?? currentStaff;
  // Pages outside the lists: the quick jump's results, and a chat room (named in the room's own heading).
  const inChat = pathname.startsWith(CHAT_PATH_PREFIX);
  const CurrentIcon = current
    ? (HUB_ICON[current.to] ?? STAFF_ICON[current.to] ?? Shield)
    : pathname === QUICK_JUMP_PATH
      ? Search
      : inChat
        ? Hash
        : null;
  const { open, toggled } = useOpenGroups(currentStaff?.group);
  const [roomCount, setRoomCount] = useState(0);
  const listRef = useCurrentLinkInView(pathname, open, menu.open, roomCount);
  const id = useId();
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
          {CurrentIcon ? <CurrentIcon className="size-4 text-accent" aria-hidden /> : null}
          <span className="min-w-0 flex-1 truncate">
            <span className="sr-only">Dashboard menu, </span>
            {current?.label ?? (pathname === QUICK_JUMP_PATH ? "Search" : inChat ? "Chat" : "Dashboard")}
          </span>
          <ChevronDown className={`size-4 text-muted transition-transform ${menu.open ? "rotate-180" : ""}`} aria-hidden />
        </button>
        {/* On a phone the open menu is as tall as the window under the bar and its button at most;
            beside the page, the sidebar is the window's height. Either way only the list of pages
            scrolls (a flex child scrolls only with min-height 0), so the account's e-mail and
            Logout stay in view. */}
        <div
          id={NAV_ID}
          className={`${menu.open ? "flex" : "hidden"} max-h-[calc(100dvh-7rem)] min-h-0 flex-col border-t border-line lg:flex lg:max-h-none lg:flex-1 lg:border-t-0`}
        >
          {quickJump.length > 0 ? <QuickJump kinds={quickJump} reveal={menu.show} /> : null}
          <nav ref={listRef} aria-label="Dashboard" className="scroll-shadows min-h-0 flex-1 overflow-y-auto overscroll-contain p-3">
            <ul aria-label="Your hub" className="flex flex-col gap-1">
              {HUB_PAGES.map(({ to, label, end }) => {
                const Icon = HUB_ICON[to] ?? LayoutDashboard;
                return (
                  <li key={to}>
                    <NavLink to={to} end={end} className={linkClass}>
                      <Icon className="size-4" aria-hidden /> {label}
                    </NavLink>
                  </li>
                );
              })}
            </ul>
            <ChatRoomsNav linkClass={linkClass} onRooms={setRoomCount} />
            {groups.length > 0 ? <hr className="my-3 border-line" /> : null}
            {groups.map((group) => (
              <details
                key={group.id}
                open={open.has(group.id)}
                onToggle={(event) => toggled(group.id, event.currentTarget.open)}
                className="group mt-1"
              >
                <summary className="flex cursor-pointer list-none items-center gap-2 rounded-md px-3 py-2 text-xs lg:py-1.5 font-semibold tracking-wider text-muted uppercase hover:text-white [&::-webkit-details-marker]:hidden">
                  <span id={`${id}-${group.id}`} className="flex-1">
                    {group.label}
                  </span>
                  <ChevronDown className="size-4 transition-transform group-open:rotate-180" aria-hidden />
                </summary>
                <ul aria-labelledby={`${id}-${group.id}`} className="flex flex-col gap-1 pb-1">
                  {group.pages.map(({ to, label, capability }) => {
                    const Icon = STAFF_ICON[to] ?? Shield;
                    return (
                      <li key={to}>
                        <NavLink to={to} className={linkClass}>
                          <Icon className="size-4" aria-hidden /> {label}
                          <ShieldCheck className="ml-auto size-4 text-accent" aria-label={staffBadge(capability)} />
                        </NavLink>
                      </li>
                    );
                  })}
                </ul>
              </details>
            ))}
          </nav>
          <div className="shrink-0 border-t border-line px-4 py-2">
            <p className="truncate px-3 text-xs text-muted" title={email}>
              {email}
            </p>
            <Form method="post" action="/auth/logout" className="mt-1">
              <button
                type="submit"
                className="flex w-full items-center gap-2 rounded-md px-3 py-2 text-sm text-zinc-300 hover:bg-panel-2 hover:text-white lg:py-1.5"
              >
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

/**
 * Around a refused staff page: the shell its 403 carries, if `carried` is one (it comes back from
 * the server as plain data), else `otherwise`. Here rather than in the root layout so that the
 * check, and the sidebar's tables it needs, come only with the shell's own code.
 */
export function ShellAroundRefusal({ carried, refusal, otherwise }: { carried: unknown; refusal: ReactNode; otherwise: ReactNode }) {
  const shell = asDashboardShell(carried);
  return shell ? <DashboardShell {...shell}>{refusal}</DashboardShell> : otherwise;
}

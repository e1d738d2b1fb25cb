// The fixed navigation bar at the top of every page.
import { Menu, X } from "~/components/icons";
import { type RefObject, Suspense, useEffect, useMemo, useRef, useState } from "react";
import { Link, NavLink } from "~/components/link";
import { BRAND } from "~/lib/brand";
import { CartButton } from "./cart/cart-drawer";
import { lazyComponent } from "./lazy";
import { buttonClass } from "./ui/button";
import { useViewer } from "./viewer";

// Only signed-in visitors see the menu, and only once the browser has asked who they are: its code
// is fetched then, not with every public page.
const AvatarMenu = lazyComponent(() => import("./avatar-menu").then((module) => module.AvatarMenu));

/** Narrower than this, a toast's words stack one under another: it goes under the bar instead. */
const MIN_TOAST_LANE_PX = 288;

/**
 * Tells the toasts where they may sit over this bar: between its brand and links and its buttons,
 * which they never cover; where that gap is too narrow to read a toast in (phones), under the bar,
 * across the page (CSS variables the toaster reads; see toaster.tsx).
 */
function useToastLane(start: RefObject<HTMLElement | null>[], buttons: RefObject<HTMLElement | null>) {
  useEffect(() => {
    const root = document.documentElement;
    const place = () => {
      // Links hidden on phones measure 0: the lane then starts after the brand.
      const left = Math.round(Math.max(0, ...start.map((ref) => ref.current?.getBoundingClientRect().right ?? 0)));
      const right = Math.round(window.innerWidth - (buttons.current?.getBoundingClientRect().left ?? window.innerWidth));
      const roomy = window.innerWidth - left - right >= MIN_TOAST_LANE_PX;
      const bar = buttons.current?.closest("header")?.getBoundingClientRect().bottom ?? 0;
      root.style.setProperty("--toast-lane-left", `${roomy ? left : 0}px`);
      root.style.setProperty("--toast-lane-right", `${roomy ? right : 0}px`);
      root.style.setProperty("--toast-lane-top", `${roomy ? 0 : Math.round(bar)}px`);
    };
    place();
    const observer = new ResizeObserver(place);
    for (const element of [...start.map((ref) => ref.current), buttons.current]) if (element) observer.observe(element);
    window.addEventListener("resize", place);
    return () => {
      observer.disconnect();
      window.removeEventListener("resize", place);
    };
  }, [start, buttons]);
}

export function SiteNav({ productsHref }: { productsHref: string }) {
  const { status, viewer } = useViewer();
  const [menuOpen, setMenuOpen] = useState(false);
  const brandRef = useRef<HTMLAnchorElement>(null);
  const linksRef = useRef<HTMLDivElement>(null);
  const buttonsRef = useRef<HTMLDivElement>(null);
  const laneStart = useMemo(() => [brandRef, linksRef], []);
  useToastLane(laneStart, buttonsRef);
  const links = [
    { to: productsHref, label: "Products" },
    { to: "/status", label: "Status" },
    { to: "/support", label: "Support" },
  ];
  const linkClass = ({ isActive }: { isActive: boolean }) =>
    `rounded-md px-3 py-2 text-sm font-medium transition-colors ${isActive ? "bg-panel-2 text-accent" : "text-zinc-300 hover:text-white"}`;

  return (
    <header className="fixed inset-x-0 top-0 z-50 h-16 border-b border-line/70 bg-surface/85 backdrop-blur">
      <nav aria-label="Main" className="mx-auto flex h-full max-w-7xl items-center gap-2 px-4">
        <Link ref={brandRef} to="/" className="mr-1 text-lg font-black tracking-tight text-white sm:mr-2 sm:text-xl">
          {BRAND.toUpperCase()}
          <span className="text-accent">.</span>
        </Link>
        <div ref={linksRef} className="hidden items-center gap-1 md:flex">
          {links.map((link) => (
            <NavLink key={link.label} to={link.to} className={linkClass}>
              {link.label}
            </NavLink>
          ))}
        </div>
        <div ref={buttonsRef} className="ml-auto flex items-center gap-1 sm:gap-2">
          <CartButton />
          <div className="flex items-center gap-1 sm:gap-2">
            {status === "loading" ? (
              // As wide as Login and Sign Up, which most visitors of a public page see.
              <span className="h-9 w-9 animate-pulse rounded-full bg-panel-2 sm:w-40" aria-hidden />
            ) : viewer ? (
              <Suspense fallback={<span className="size-9 animate-pulse rounded-full bg-panel-2" aria-hidden />}>
                <AvatarMenu viewer={viewer} />
              </Suspense>
            ) : (
              <>
                <Link to="/auth" className={buttonClass("ghost", "sm", "px-2 sm:px-3")}>
                  Login
                </Link>
                <Link to="/auth?mode=signup" className={buttonClass("primary", "sm", "px-2 sm:px-3")}>
                  Sign Up
                </Link>
              </>
            )}
          </div>
          <button
            type="button"
            className="rounded-md p-1.5 text-zinc-300 hover:text-white md:hidden"
            aria-expanded={menuOpen}
            aria-controls="mobile-nav"
            aria-label={menuOpen ? "Close menu" : "Open menu"}
            onClick={() => setMenuOpen((v) => !v)}
          >
            {menuOpen ? <X className="size-5" aria-hidden /> : <Menu className="size-5" aria-hidden />}
          </button>
        </div>
      </nav>
      <div id="mobile-nav" hidden={!menuOpen} className="border-b border-line bg-surface px-4 pb-4 md:hidden">
        <div className="flex flex-col gap-1 pt-2">
          {links.map((link) => (
            <NavLink key={link.label} to={link.to} className={linkClass} onClick={() => setMenuOpen(false)}>
              {link.label}
            </NavLink>
          ))}
        </div>
      </div>
    </header>
  );
}

// The fixed navigation bar at the top of every page.
import { Menu, X } from "~/components/icons";
import { type RefObject, Suspense, useEffect, useRef, useState } from "react";
import { Link, NavLink } from "react-router";
import { BRAND } from "~/lib/brand";
import { CartButton } from "./cart/cart-drawer";
import { lazyComponent } from "./lazy";
import { buttonClass } from "./ui/button";
import { useViewer } from "./viewer";

// Only signed-in visitors see the menu, and only once the browser has asked who they are: its code
// is fetched then, not with every public page.
const AvatarMenu = lazyComponent(() => import("./avatar-menu").then((module) => module.AvatarMenu));

/**
 * Tells the toasts where they may sit over this bar: between its links (from 768 px up) and its
 * buttons, which they never cover (CSS variables the toaster reads; see toaster.tsx).
 */
function useToastLane(links: RefObject<HTMLElement | null>, buttons: RefObject<HTMLElement | null>) {
  useEffect(() => {
    const root = document.documentElement;
    const place = () => {
      // Links hidden on phones measure 0: the lane then starts at the bar's left edge.
      root.style.setProperty("--toast-lane-left", `${Math.round(links.current?.getBoundingClientRect().right ?? 0)}px`);
      root.style.setProperty("--toast-lane-right", `${Math.round(window.innerWidth - (buttons.current?.getBoundingClientRect().left ?? window.innerWidth))}px`);
    };
    place();
    const observer = new ResizeObserver(place);
    for (const element of [links.current, buttons.current]) if (element) observer.observe(element);
    window.addEventListener("resize", place);
    return () => {
      observer.disconnect();
      window.removeEventListener("resize", place);
    };
  }, [links, buttons]);
}

export function SiteNav({ productsHref }: { productsHref: string }) {
  const { status, viewer } = useViewer();
  const [menuOpen, setMenuOpen] = useState(false);
  const linksRef = useRef<HTMLDivElement>(null);
  const buttonsRef = useRef<HTMLDivElement>(null);
  useToastLane(linksRef, buttonsRef);
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
        <Link to="/" className="mr-1 text-lg font-black tracking-tight text-white sm:mr-2 sm:text-xl">
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

// The app's links. In the browser they are React Router's own `Link` and `NavLink`. On the server,
// a link whose `to` is already a plain absolute path is drawn as the very `<a>` React Router draws,
// without its per-link work (resolving the path against every matched route, encoding it through a
// URL, the click handler's and prefetching's hooks): a page with a sidebar and a table of rows
// drew dozens of them at every render (decision 124). Any other link, and every link under a
// basename, is React Router's on the server too. A test renders both ways and compares the HTML, so a change in React Router's
// markup shows there.
import { type ComponentProps, type ReactNode, useContext } from "react";
// eslint-disable-next-line no-restricted-imports -- the one module that wraps them
import { Link as RouterLink, NavLink as RouterNavLink, UNSAFE_NavigationContext, useLocation } from "react-router";

type LinkProps = ComponentProps<typeof RouterLink>;
type NavLinkProps = ComponentProps<typeof RouterNavLink>;

/**
 * `to` when React Router would draw it unchanged and resolve it to itself: a string path from the
 * root, with no "." or ".." segment (also escaped), no run of slashes, nothing a URL escapes, and no
 * empty "?" or "#" (the router drops those). Null for any other `to`.
 */
export function plainPath(to: LinkProps["to"]): { href: string; pathname: string } | null {
  if (typeof to !== "string") return null;
  const hashAt = to.indexOf("#");
  const beforeHash = hashAt < 0 ? to : to.slice(0, hashAt);
  const searchAt = beforeHash.indexOf("?");
  const pathname = searchAt < 0 ? beforeHash : beforeHash.slice(0, searchAt);
  if (!/^\/[\w\-.~!$&'()*+,;=:@%/]*$/.test(pathname) || pathname.includes("//") || /\/\.\.?(?:\/|$)|%2e/i.test(pathname)) return null;
  if (beforeHash.slice(pathname.length) === "?" || (hashAt >= 0 && hashAt === to.length - 1)) return null;
  return { href: to, pathname };
}

/** `to` as a plain path the server may draw itself: none while a basename would prefix the links. */
function useDrawnPath(to: LinkProps["to"]) {
  const { basename } = useContext(UNSAFE_NavigationContext);
  return basename === "/" ? plainPath(to) : null;
}

/** React Router's `<Link>` as the server draws it, for a plain path and no prefetching or mask. */
export function ServerLink(props: LinkProps) {
  const {
    to,
    discover = "render",
    prefetch = "none",
    mask,
    relative: _relative,
    reloadDocument: _reloadDocument,
    replace: _replace,
    state: _state,
    preventScrollReset: _preventScrollReset,
    viewTransition: _viewTransition,
    defaultShouldRevalidate: _defaultShouldRevalidate,
    onClick: _onClick,
    target,
    ...rest
  } = props;
  const path = useDrawnPath(to);
  if (!path || prefetch === "render" || mask !== undefined) return <RouterLink {...props} />;
  return <a {...rest} href={path.href} target={target} data-discover={discover === "render" ? "true" : undefined} />;
}

/** React Router's `<NavLink>` as the server draws it: active when the page's path is the link's or below it. */
export function ServerNavLink(props: NavLinkProps) {
  const { "aria-current": ariaCurrent = "page", caseSensitive = false, className = "", end = false, style, children, ...rest } = props;
  const location = useLocation();
  const path = useDrawnPath(rest.to);
  if (!path) return <RouterNavLink {...props} />;
  const here = caseSensitive ? location.pathname : location.pathname.toLowerCase();
  const target = caseSensitive ? path.pathname : path.pathname.toLowerCase();
  const endSlash = target !== "/" && target.endsWith("/") ? target.length - 1 : target.length;
  const isActive = here === target || (!end && here.startsWith(target) && here.charAt(endSlash) === "/");
  // On the server nothing is pending and no view transition runs.
  const state = { isActive, isPending: false, isTransitioning: false };
  return (
    <ServerLink
      {...rest}
      aria-current={isActive ? ariaCurrent : undefined}
      className={typeof className === "function" ? className(state) : [className, isActive ? "active" : null].filter(Boolean).join(" ")}
      style={typeof style === "function" ? style(state) : style}
    >
      {typeof children === "function" ? children(state) : children}
    </ServerLink>
  );
}

export const Link: (props: LinkProps) => ReactNode = import.meta.env.SSR ? ServerLink : RouterLink;
export const NavLink: (props: NavLinkProps) => ReactNode = import.meta.env.SSR ? ServerNavLink : RouterNavLink;

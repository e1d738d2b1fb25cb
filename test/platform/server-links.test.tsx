// The server's links draw what React Router's Link and NavLink draw, attribute for attribute, for
// every kind of `to` and prop the app passes (and fall back to React Router's for any other `to`),
// under the static router the server renders with and under the test stub's memory router.
import { renderToString } from "react-dom/server";
import type { ReactNode } from "react";
import {
  createRoutesStub,
  createStaticHandler,
  createStaticRouter,
  Link as RouterLink,
  NavLink as RouterNavLink,
  StaticRouterProvider,
} from "react-router";
import { describe, expect, it } from "vitest";
import { plainPath, ServerLink, ServerNavLink } from "~/components/link";

/** The links rendered at `at` by the server's static router (with `basename`), and by the test stub's router. */
async function renders(at: string, links: ReactNode, basename = "/"): Promise<string[]> {
  const routes = [{ path: "*", Component: () => <nav>{links}</nav> }];
  const handler = createStaticHandler(routes, { basename });
  const context = await handler.query(new Request(`https://shop.example${at}`));
  if (context instanceof Response) throw new Error(`the static handler answered ${context.status}`);
  const served = renderToString(<StaticRouterProvider router={createStaticRouter(handler.dataRoutes, context)} context={context} />);
  if (basename !== "/") return [served];
  const Stub = createRoutesStub(routes);
  return [served, renderToString(<Stub initialEntries={[at]} />)];
}

type LinkProps = Parameters<typeof ServerLink>[0];
type NavLinkProps = Parameters<typeof ServerNavLink>[0];

const TOS: LinkProps["to"][] = [
  "/",
  "/support",
  "/dashboard/orders?q=a%40b.example",
  "/dashboard/orders/shopify/gid%3A%2F%2Fshopify%2FOrder%2F1",
  "/product/vertex-rust#reviews",
  "/dashboard/",
  "/v1.2/notes",
  "?mode=signup",
  "?",
  "../up",
  "/a/./b",
  "/a/%2E%2E/b",
  "/a//b",
  "/a?",
  "/a#",
  "/a?#h",
  "/a b",
  "/a%20b",
  "/%",
  "/a%2Fb",
  "/a;b=c",
  "/~u/'q'",
  "/a:b@c",
  "/...",
  "/.well-known/x",
  "/a/.hidden",
  "/a#x?y",
  "/a?b?c#d#e",
  "/a?x y",
  "/a#x ",
  "/?x",
  "https://example.com/x",
  "//example.com/x",
  { pathname: "/x", search: "?y=1" },
];

const LINK_PROPS: Omit<LinkProps, "to">[] = [
  {},
  { className: "font-semibold", "aria-label": "Go", children: "Go" },
  { target: "_blank", rel: "noreferrer" },
  { replace: true, state: { from: "list" }, preventScrollReset: true, viewTransition: true },
  { prefetch: "intent" },
  { prefetch: "viewport" },
  { prefetch: "render" },
  { reloadDocument: true },
  { discover: "none" },
  { onClick: () => undefined, style: { color: "red" } },
];

describe("links drawn on the server", () => {
  it("Link: the same markup as React Router's for every `to` and prop", async () => {
    for (const to of TOS)
      for (const props of LINK_PROPS) {
        const ours = await renders("/dashboard/orders", <ServerLink to={to} {...props} />);
        const router = await renders("/dashboard/orders", <RouterLink to={to} {...props} />);
        expect(ours, JSON.stringify({ to, props })).toEqual(router);
      }
  });

  it("leaves every link to React Router under a basename, which prefixes them", async () => {
    for (const to of ["/", "/dashboard/orders?q=x", "/support"]) {
      const [ours] = await renders("/shop/dashboard/orders", <ServerLink to={to} />, "/shop");
      const [router] = await renders("/shop/dashboard/orders", <RouterLink to={to} />, "/shop");
      expect(ours).toBe(router);
      expect(ours).toContain(`href="/shop${to === "/" ? "" : to}"`);
      const [nav] = await renders("/shop/dashboard/orders", <ServerNavLink to={to} />, "/shop");
      expect(nav).toBe((await renders("/shop/dashboard/orders", <RouterNavLink to={to} />, "/shop"))[0]);
    }
  });

  it("NavLink: active, with its class, aria-current, style and children, where React Router's is", async () => {
    const navs: NavLinkProps[] = [
      { to: "/dashboard" },
      { to: "/dashboard", end: true },
      { to: "/dashboard/orders", className: "px-2" },
      { to: "/dashboard/Orders" },
      { to: "/dashboard/Orders", caseSensitive: true },
      { to: "/dashboard/orders/" },
      { to: "/dashboard/orders/", end: true },
      { to: "/a%2Fb" },
      { to: "/dashboard", viewTransition: true, prefetch: "render" },
      { to: "/dashboard", children: ["Dash", "board"] },
      { to: "/dashboard/order" },
      { to: "/", end: true },
      { to: "/" },
      { to: "/dashboard/orders?q=x", "aria-current": "step" },
      { to: "../up" },
      {
        to: "/dashboard",
        className: ({ isActive, isPending }) => (isActive ? "on" : isPending ? "wait" : "off"),
        style: ({ isActive }) => ({ fontWeight: isActive ? 700 : 400 }),
        children: ({ isActive }) => (isActive ? "Here" : "There"),
      },
    ];
    for (const at of ["/dashboard/orders", "/dashboard/orders/", "/dashboard", "/", "/a%2fb"])
      for (const props of navs) {
        const ours = await renders(at, <ServerNavLink {...props} />);
        const router = await renders(at, <RouterNavLink {...props} />);
        expect(ours, JSON.stringify({ at, to: props.to })).toEqual(router);
      }
  });

  it("draws a plain path itself and hands any other to React Router", () => {
    expect(plainPath("/dashboard/orders?q=x#top")).toEqual({ href: "/dashboard/orders?q=x#top", pathname: "/dashboard/orders" });
    for (const to of ["?mode=signup", "../up", "/a/./b", "/a/%2e%2e/b", "/a//b", "/a?", "/a#", "/a b", "https://example.com/x", "//x"])
      expect(plainPath(to), to).toBeNull();
    expect(plainPath({ pathname: "/x" })).toBeNull();
    // What it draws, a URL keeps as it is: the path NavLink compares is the one written.
    for (const to of TOS) {
      const path = plainPath(to);
      if (path) expect(new URL(path.pathname, "https://shop.example").pathname, String(to)).toBe(path.pathname);
    }
  });
});

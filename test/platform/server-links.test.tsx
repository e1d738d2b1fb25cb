// The server's links draw what React Router's Link and NavLink draw, attribute for attribute, for
// every kind of `to` and prop the app passes (and fall back to React Router's for any other `to`).
import { renderToString } from "react-dom/server";
import type { ReactNode } from "react";
import { createRoutesStub, Link as RouterLink, NavLink as RouterNavLink } from "react-router";
import { describe, expect, it } from "vitest";
import { plainPath, ServerLink, ServerNavLink } from "~/components/link";

function render(at: string, links: ReactNode): string {
  const Stub = createRoutesStub([{ path: "*", Component: () => <nav>{links}</nav> }]);
  return renderToString(<Stub initialEntries={[at]} />);
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
  it("Link: the same markup as React Router's for every `to` and prop", () => {
    for (const to of TOS)
      for (const props of LINK_PROPS) {
        const ours = render("/dashboard/orders", <ServerLink to={to} {...props} />);
        const router = render("/dashboard/orders", <RouterLink to={to} {...props} />);
        expect(ours, JSON.stringify({ to, props })).toBe(router);
      }
  });

  it("NavLink: active, with its class, aria-current, style and children, where React Router's is", () => {
    const navs: NavLinkProps[] = [
      { to: "/dashboard" },
      { to: "/dashboard", end: true },
      { to: "/dashboard/orders", className: "px-2" },
      { to: "/dashboard/Orders" },
      { to: "/dashboard/Orders", caseSensitive: true },
      { to: "/dashboard/orders/" },
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
    for (const at of ["/dashboard/orders", "/dashboard/orders/", "/dashboard", "/"])
      for (const props of navs) {
        const ours = render(at, <ServerNavLink {...props} />);
        const router = render(at, <RouterNavLink {...props} />);
        expect(ours, JSON.stringify({ at, to: props.to })).toBe(router);
      }
  });

  it("draws a plain path itself and hands any other to React Router", () => {
    expect(plainPath("/dashboard/orders?q=x#top")).toEqual({ href: "/dashboard/orders?q=x#top", pathname: "/dashboard/orders" });
    for (const to of ["?mode=signup", "../up", "/a/./b", "/a/%2e%2e/b", "/a//b", "/a?", "/a#", "/a b", "https://example.com/x", "//x"])
      expect(plainPath(to), to).toBeNull();
    expect(plainPath({ pathname: "/x" })).toBeNull();
  });
});

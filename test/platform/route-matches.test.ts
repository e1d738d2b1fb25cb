// The route-match memo the Worker's build puts in React Router's matcher (decision 120): the same
// matches as a fresh match, fresh objects for each caller, a bounded memory, and nothing kept past
// a change of routes. The Worker suite runs every page through it as well (vitest.config.ts).
import { matchRoutes } from "react-router";
import { describe, expect, it, vi } from "vitest";
import { forgetMatches, REMEMBERED_PATHS, rememberedMatch } from "~/server/platform/route-matches.server";

const routes = [
  {
    id: "root",
    path: "/",
    children: [
      { id: "home", index: true },
      { id: "product", path: "product/:handle" },
      { id: "missing", path: "*" },
    ],
  },
];

function counted() {
  const matcher = {};
  const calls = vi.fn((path: string) => matchRoutes(routes, path));
  return { matcher, calls, match: (path: string, partial = false) => rememberedMatch(matcher, path, partial, () => calls(path)) };
}

describe("remembered route matches", () => {
  it("answers what a fresh match answers, trying the routes once per path", () => {
    const { calls, match } = counted();
    for (const path of ["/", "/product/vertex-rust", "/no/such/page", "/product/vertex-rust", "/"])
      expect(match(path)).toEqual(matchRoutes(routes, path));
    expect(calls).toHaveBeenCalledTimes(3);
    // A whole and a partial match of one path are told apart.
    match("/", true);
    expect(calls).toHaveBeenCalledTimes(4);
  });

  it("gives each caller its own match objects, sharing one params object as a fresh match does", () => {
    const { match } = counted();
    const first = match("/product/vertex-rust")!;
    expect(first[0]!.params).toBe(first[1]!.params);
    Object.assign(first[1]!.params, { handle: "changed" });
    Object.assign(first[0]!, { pathname: "/elsewhere" });
    const second = match("/product/vertex-rust")!;
    expect(second[1]!.params).toEqual({ handle: "vertex-rust" });
    expect(second[0]!.pathname).toBe("/");
    expect(second[1]!.route).toBe(first[1]!.route);
  });

  it("remembers a path nothing matches, and forgets everything when the routes change", () => {
    const matcher = {};
    const none = vi.fn(() => null);
    expect(rememberedMatch(matcher, "/nowhere", false, none)).toBeNull();
    expect(rememberedMatch(matcher, { pathname: "/nowhere" }, false, none)).toBeNull();
    expect(none).toHaveBeenCalledTimes(1);
    forgetMatches(matcher);
    rememberedMatch(matcher, "/nowhere", false, none);
    expect(none).toHaveBeenCalledTimes(2);
  });

  it(`keeps at most ${REMEMBERED_PATHS} paths, forgetting the oldest first`, () => {
    const { calls, match } = counted();
    for (let i = 0; i <= REMEMBERED_PATHS; i++) match(`/product/p${i}`);
    expect(calls).toHaveBeenCalledTimes(REMEMBERED_PATHS + 1);
    match(`/product/p${REMEMBERED_PATHS}`);
    expect(calls).toHaveBeenCalledTimes(REMEMBERED_PATHS + 1);
    match("/product/p0");
    expect(calls).toHaveBeenCalledTimes(REMEMBERED_PATHS + 2);
  });
});

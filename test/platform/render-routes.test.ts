// The render's routes made once per build (decision 138): what React Router derives from the route
// table for every document is made on the first request and shared after, per build and per
// variant, and what is derived from something else is made afresh as before. The Worker suite runs
// every page through it as well (vitest.config.ts).
import { describe, expect, it, vi } from "vitest";
import { derivedOnce, madeOnce } from "~/server/platform/render-routes.server";

describe("the render's routes made once", () => {
  it("makes a value once for the same sources and variant, and again for another variant", () => {
    const routes = {};
    const modules = {};
    const make = vi.fn(() => ({ made: true }));
    const first = madeOnce([routes, modules], "server", make);
    expect(madeOnce([routes, modules], "server", make)).toBe(first);
    expect(make).toHaveBeenCalledTimes(1);
    const spa = madeOnce([routes, modules], "spa", make);
    expect(spa).not.toBe(first);
    expect(make).toHaveBeenCalledTimes(2);
  });

  it("makes a new value for a new build: either source changed", () => {
    const routes = {};
    const make = vi.fn(() => ({}));
    const first = madeOnce([routes, {}], "server", make);
    expect(madeOnce([routes, {}], "server", make)).not.toBe(first);
    expect(madeOnce([{}], "server", make)).not.toBe(first);
    expect(make).toHaveBeenCalledTimes(3);
  });

  it("derives once from what it made, and afresh from anything else", () => {
    const routes = madeOnce([{}], "server", () => [{ id: "root" }]);
    const derive = vi.fn(() => ({ dataRoutes: [] }));
    const derived = derivedOnce(routes, "data routes", derive);
    expect(derivedOnce(routes, "data routes", derive)).toBe(derived);
    expect(derive).toHaveBeenCalledTimes(1);
    // A caller's own routes (which it may change between calls) are converted every time.
    const own = [{ id: "root" }];
    expect(derivedOnce(own, "data routes", derive)).not.toBe(derivedOnce(own, "data routes", derive));
    expect(derive).toHaveBeenCalledTimes(3);
  });
});

import { expect, type Page, test } from "@playwright/test";
import { PRODUCTION_URL } from "./servers";

// Only the production build writes the stylesheet into the document and holds hydration until the
// page has painted (decision 025); the development server leaves documents as React Router renders
// them. These tests run against a fresh build in local workerd.
test.use({ baseURL: PRODUCTION_URL });

/** Waits until the loader has swapped the held script for a running copy and React Router has loaded the routes. */
async function hydrated(page: Page) {
  await page.waitForFunction(() => !document.querySelector('script[type="text/x-after-paint"]') && "__reactRouterRouteModules" in window);
}

test("a page paints from its document first, then hydrates under the CSP", async ({ page }) => {
  const problems: string[] = [];
  page.on("console", (message) => {
    if (message.type() === "error") problems.push(message.text());
  });
  page.on("pageerror", (error) => problems.push(error.message));

  await page.goto("/product/vertex-rust");
  await hydrated(page);

  // No script was even requested before the first contentful paint.
  const timing = await page.evaluate(() => {
    const paint = performance.getEntriesByName("first-contentful-paint")[0]?.startTime ?? Infinity;
    const scripts = performance.getEntriesByType("resource").filter((entry) => /\/assets\/.*\.js$/.test(entry.name));
    return { paint, firstScript: Math.min(...scripts.map((entry) => entry.startTime)), scripts: scripts.length };
  });
  expect(timing.scripts).toBeGreaterThan(0);
  expect(timing.firstScript).toBeGreaterThanOrEqual(timing.paint);

  // Hydrated: the cart drawer opens, which only the client code can do.
  await page.getByRole("button", { name: "Open cart, 0 items" }).click();
  await expect(page.getByRole("dialog", { name: "Shopping Cart" })).toBeVisible();
  // A refused inline script or module (the nonce) would show up here.
  expect(problems).toEqual([]);
});

test("client-side navigation works once hydrated", async ({ page }) => {
  await page.goto("/");
  await hydrated(page);
  await page.evaluate(() => Object.assign(window, { stillThisDocument: true }));
  await page.getByRole("contentinfo").getByRole("link", { name: "Products" }).click();
  await expect(page).toHaveURL(/\/products$/);
  expect(await page.evaluate(() => "stillThisDocument" in window)).toBe(true);
});

test("a footer link clicked before the footer's code has arrived still navigates in place", async ({ page }) => {
  // The footer's code comes as it nears the viewport (decision 114); here it never comes, so the
  // footer stays the server's markup, which React has not hydrated.
  await page.route("**/assets/*.js", async (route) => {
    const response = await route.fetch();
    if ((await response.text()).includes("All rights reserved")) return;
    await route.fulfill({ response });
  });
  await page.goto("/");
  await hydrated(page);
  await page.evaluate(() => Object.assign(window, { stillThisDocument: true }));
  await page.getByRole("contentinfo").getByRole("link", { name: "Products" }).click();
  await expect(page).toHaveURL(/\/products$/);
  await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
  expect(await page.evaluate(() => "stillThisDocument" in window)).toBe(true);
});

test("the storefront downloads none of the back office's code", async ({ page }) => {
  const scripts: string[] = [];
  page.on("request", (request) => {
    const { pathname } = new URL(request.url());
    if (pathname.endsWith(".js")) scripts.push(pathname);
  });
  for (const path of ["/", "/product/vertex-rust", "/auth"]) {
    await page.goto(path);
    await hydrated(page);
  }
  // The staff pages' own chunk, as the build's full route manifest names it for the order page.
  const manifestUrl = await page.evaluate(
    () => (window as unknown as { __reactRouterManifest: { url: string } }).__reactRouterManifest.url,
  );
  const manifest = await (await page.request.get(manifestUrl)).text();
  const orderPage = /"routes\/back-office\/order":\{[^}]*"imports":\[([^\]]*)\]/.exec(manifest)?.[1] ?? "";
  const staffOnly = [...orderPage.matchAll(/"(\/assets\/back-office-[\w-]+\.js)"/g)].map((match) => match[1]);
  expect(staffOnly).toHaveLength(1);
  expect(scripts.length).toBeGreaterThan(0);
  expect(scripts).not.toContain(staffOnly[0]);
});

test("the cart's panel is fetched on demand, and a chunk that fails to arrive reloads the page once", async ({ page }) => {
  const panelChunk = /\/assets\/cart-panel-[\w-]+\.js$/;
  const fetched: string[] = [];
  page.on("request", (request) => {
    if (panelChunk.test(new URL(request.url()).pathname)) fetched.push(request.url());
  });
  // Until the page has been loaded a second time, every request for the panel's code is dropped.
  let loads = 0;
  let dropped = 0;
  page.on("load", () => loads++);
  await page.route(panelChunk, (route) => {
    if (loads >= 2) return route.continue();
    dropped++;
    return route.abort("connectionreset");
  });

  await page.goto("/");
  await hydrated(page);
  expect(fetched).toEqual([]);

  // The click fetches the panel, which fails: the page loads afresh instead of breaking.
  await page.evaluate(() => Object.assign(window, { beforeTheReload: true }));
  await page.getByRole("button", { name: "Open cart, 0 items" }).click();
  await page.waitForFunction(() => !("beforeTheReload" in window));
  await hydrated(page);
  await page.getByRole("button", { name: "Open cart, 0 items" }).click();
  await expect(page.getByRole("dialog", { name: "Shopping Cart" })).toBeVisible();
  expect(dropped).toBeGreaterThan(0);
  expect(fetched.length).toBeGreaterThan(dropped);
});

test("a production build has no development pages: no mailbox, simulated chain or simulated Discord", async ({ request }) => {
  for (const path of ["/dev/mail", "/dev/chain", "/dev/discord"]) {
    const response = await request.get(path);
    expect([path, response.status()]).toEqual([path, 404]);
  }
});

// Accessibility: axe-core's WCAG 2.2 AA rules on every page, for a visitor, a member and an
// admin, at desktop and phone widths, and on the dashboard's grouped navigation and quick jump. A failure lists each violation with the rule, the element,
// the page, the width and the role.
import AxeBuilder from "@axe-core/playwright";
import { expect, type Page, test } from "@playwright/test";
import { INTRO_FLAG } from "../../app/lib/intro";
import { creditFromCustomerPage, logIn, openCartWithMainProduct, reloadUntilVisible } from "./helpers";

const WCAG_22_AA = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"];
const WIDTHS = [1280, 390];

const PUBLIC_PAGES = [
  "/",
  "/products",
  "/product/vertex-rust",
  // A product without reviews or a sale: the empty state.
  "/product/vertex-hwid-spoofer",
  "/status",
  "/support",
  "/affiliate",
  "/docs/licence-api",
  "/legal/terms",
  "/auth",
  "/auth?mode=signup",
  "/auth/forgot",
  // Without a link: the page that says the link cannot be used.
  "/auth/reset",
  "/reminders/unsubscribe?user=none&signature=none",
  "/no-such-page",
  // The simulated Discord's control panel (development only).
  "/dev/discord",
];
const HUB_PAGES = [
  "/dashboard",
  "/dashboard/subscriptions",
  "/dashboard/downloads",
  "/dashboard/crypto-tracker",
  "/dashboard/resell",
  "/dashboard/2fa",
  "/dashboard/security",
  "/dashboard/affiliate",
  "/dashboard/chat/general",
  "/dashboard/chat/announcements",
];
const ADMIN_PAGES = [
  ...HUB_PAGES,
  "/dashboard/manage-codes",
  "/dashboard/licences",
  "/dashboard/licences?key=NO-SUCH-KEY",
  "/dashboard/orders",
  "/dashboard/customers",
  "/dashboard/audit",
  "/dashboard/sales",
  "/dashboard/releases",
  "/dashboard/entitlements",
  "/dashboard/replacements",
  "/dashboard/affiliates",
  "/dashboard/legal",
  "/dashboard/reviews",
  "/dashboard/promotions",
  "/dashboard/discord",
  "/dashboard/disputes",
  "/dashboard/blocklists",
  "/dashboard/licences-at-risk",
  "/dashboard/chat-moderation",
  // The quick jump's results page, listed rather than jumping to the one account it finds.
  "/dashboard/search?q=admin&list=1",
];

/** Opens `path` once it has hydrated and loaded its data, and returns axe's findings as lines. */
async function violations(page: Page, path: string, where: string): Promise<string[]> {
  await page.goto(path, { waitUntil: "networkidle" });
  await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
  return scan(page, path, where);
}

/** axe's findings on the page as it is now. */
async function scan(page: Page, path: string, where: string): Promise<string[]> {
  // The home page's video is a third-party frame: its element is checked, its content is not ours.
  const { violations: found } = await new AxeBuilder({ page }).withTags(WCAG_22_AA).options({ iframes: false }).analyze();
  return found.flatMap((rule) =>
    rule.nodes.map((node) => `${where} ${path}: ${rule.id} (${rule.impact ?? "?"}) at ${node.target.join(" ")} — ${rule.help}`),
  );
}

/**
 * A licence for the admin's licence page to show: a key the admin generates in their own reseller
 * panel, after crediting its balance on its own customer page.
 */
async function generatedKey(page: Page): Promise<string> {
  await creditFromCustomerPage(page, "admin", "250");
  await page.goto("/dashboard/resell", { waitUntil: "networkidle" });
  await page.getByRole("button", { name: "Generate Keys" }).click();
  await expect(page.getByText("Generated 5 key(s) successfully")).toBeVisible();
  const copy = await page
    .getByRole("button", { name: /^Copy KEY-/ })
    .first()
    .getAttribute("aria-label");
  return copy!.replace(/^Copy /, "");
}

/** A demo checkout for one unit of the main product, opened the way the cart opens it. */
async function demoCheckoutPath(page: Page): Promise<string> {
  const url = await page.evaluate(async () => {
    const response = await fetch("/api/checkout", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ lines: [{ merchandiseId: "gid://shopify/ProductVariant/4710000000001", quantity: 1 }] }),
    });
    return ((await response.json()) as { checkoutUrl?: string }).checkoutUrl;
  });
  if (!url) throw new Error("no demo checkout URL");
  return new URL(url).pathname;
}

for (const width of WIDTHS) {
  test.describe(`${width}px wide`, () => {
    test.beforeEach(async ({ page, context }) => {
      await page.setViewportSize({ width, height: 900 });
      // The intro splash covers the home page for its first seconds; the page under it is scanned.
      await context.addInitScript((flag) => sessionStorage.setItem(flag, "true"), INTRO_FLAG);
    });

    test("public pages, signed out", async ({ page }) => {
      // Fifteen pages, each loaded to network idle and scanned: more than one test's usual time.
      test.setTimeout(240_000);
      const found: string[] = [];
      for (const path of PUBLIC_PAGES) found.push(...(await violations(page, path, `visitor ${width}px`)));
      expect(found, found.join("\n")).toEqual([]);
    });

    test("hub pages and the demo checkout, as a member", async ({ page }) => {
      await logIn(page, "member", "member-demo-1");
      const found: string[] = [];
      const checkout = await demoCheckoutPath(page);
      for (const path of [...HUB_PAGES, checkout]) {
        found.push(...(await violations(page, path, `member ${width}px`)));
      }
      // Paid: the page then shows the order's keys (or that they are on their way).
      await page.getByRole("button", { name: /^Pay / }).click();
      await expect(page.getByText("Paid. Your key is on its way to your e-mail.")).toBeVisible();
      found.push(...(await scan(page, `${checkout} (paid)`, `member ${width}px`)));
      // The renewal page of a licence (decision 090), from its card on Subscriptions.
      const renew = page.getByRole("link", { name: /^Renew or upgrade/ }).first();
      await reloadUntilVisible(page, "/dashboard/subscriptions", renew);
      found.push(...(await violations(page, (await renew.getAttribute("href"))!, `member ${width}px`)));
      expect(found, found.join("\n")).toEqual([]);
    });

    test("a confirmation dialog and the dashboard's menu, as an admin", async ({ page }) => {
      await logIn(page, "admin", "admin-demo-1");
      await page.goto("/dashboard/manage-codes", { waitUntil: "networkidle" });
      const found: string[] = [];
      if (width < 1024) {
        await page.getByRole("button", { name: /^Dashboard menu/ }).click();
        found.push(...(await scan(page, "/dashboard/manage-codes (menu open)", `admin ${width}px`)));
        await page.keyboard.press("Escape");
      }
      await page
        .getByRole("button", { name: /^Delete code / })
        .first()
        .click();
      await expect(page.getByRole("dialog", { name: "Delete this code?" })).toBeVisible();
      found.push(...(await scan(page, "/dashboard/manage-codes (delete dialog)", `admin ${width}px`)));
      expect(found, found.join("\n")).toEqual([]);
    });

    test("the grouped sidebar (the menu on a phone) with every group open, and the quick jump's list, as an admin", async ({ page }) => {
      await logIn(page, "admin", "admin-demo-1");
      await page.goto("/dashboard/orders", { waitUntil: "networkidle" });
      if (width < 1024) await page.getByRole("button", { name: /^Dashboard menu/ }).click();
      const nav = page.getByRole("navigation", { name: "Dashboard" });
      for (const group of await nav.locator("details").all()) {
        if (!(await group.evaluate((details) => (details as HTMLDetailsElement).open))) await group.locator("summary").click();
      }
      // The member's pages, the staff pages, and the chat's rooms.
      const rooms = nav.getByRole("list", { name: "Chat" }).getByRole("link");
      await expect(rooms.first()).toBeVisible();
      await expect(nav.getByRole("link")).toHaveCount(27 + (await rooms.count()));
      const found = await scan(page, "/dashboard/orders (every group open)", `admin ${width}px`);
      await page.keyboard.press("/");
      const box = page.getByRole("combobox", { name: "Quick jump" });
      await box.fill("admin");
      await expect(page.getByRole("listbox", { name: "Quick jump results" }).getByRole("option").first()).toBeVisible();
      await box.press("ArrowDown");
      found.push(...(await scan(page, "/dashboard/orders (quick jump open)", `admin ${width}px`)));
      expect(found, found.join("\n")).toEqual([]);
    });

    test("the open cart drawer with a toast in it, as a member", async ({ page }) => {
      const drawer = await openCartWithMainProduct(page);
      await expect(drawer.getByRole("status").filter({ hasText: "Added to cart!" })).toBeVisible();
      const found = await scan(page, "/product/vertex-rust (cart open)", `member ${width}px`);
      expect(found, found.join("\n")).toEqual([]);
    });

    test("hub pages, as an admin", async ({ page }) => {
      // Twenty-four pages, each loaded and scanned in full.
      test.setTimeout(240_000);
      await logIn(page, "admin", "admin-demo-1");
      const found: string[] = [];
      for (const path of [...ADMIN_PAGES, `/dashboard/licences?key=${await generatedKey(page)}`]) {
        found.push(...(await violations(page, path, `admin ${width}px`)));
      }
      // A customer's page, with its Discord card (the link, the roles it should have and has).
      await page.goto("/dashboard/customers?q=member", { waitUntil: "networkidle" });
      await page.getByRole("link", { name: "member", exact: true }).first().click();
      await expect(page.getByRole("heading", { name: "Discord" })).toBeVisible();
      found.push(...(await scan(page, "/dashboard/customers/<member>", `admin ${width}px`)));
      expect(found, found.join("\n")).toEqual([]);
    });
  });
}

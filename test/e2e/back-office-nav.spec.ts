// The back office's navigation on a laptop and a phone: every staff page opened by clicking it in
// the grouped sidebar (or the phone's menu), for an admin and for support, with support seeing only
// its groups; and the quick jump, which finds an order, a customer and a licence, from "/" or
// Ctrl+K, and without script as a plain form.
import { type Browser, expect, type Locator, type Page, test } from "@playwright/test";
import { buyWeeklyByWebhook, logIn, mailFromMailbox, signUpAndLogIn, stockAsAdmin, uniqueName } from "./helpers";

const SIZES = [
  { width: 1280, height: 720 },
  { width: 390, height: 844 },
];

/** Each group's pages as the sidebar lists them, and the heading each page opens with. */
const ADMIN_GROUPS: [string, string[]][] = [
  ["Sales", ["Orders", "Customers", "Sales", "Disputes"]],
  ["Keys & licences", ["Manage Codes", "Licences", "Replacements", "Blocklists", "Licences at risk"]],
  ["Catalogue & releases", ["Releases", "Entitlements", "Promotions"]],
  ["Community", ["Affiliates", "Reviews", "Chat Moderation", "Discord"]],
  ["Settings", ["Legal Pages", "Audit Log", "Health"]],
];
const SUPPORT_GROUPS: [string, string[]][] = [
  ["Sales", ["Orders", "Customers", "Disputes"]],
  ["Keys & licences", ["Licences", "Blocklists", "Licences at risk"]],
  ["Community", ["Affiliates", "Reviews", "Chat Moderation"]],
  ["Settings", ["Audit Log"]],
];

// The label as a whole: "Licences" names the Licences page, not "Licences at risk".
const startsWith = (label: string) => new RegExp(`^${label.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}\\b(?!\\s+at risk)`, "i");

/** A fresh member made support by the demo admin on the member's page in the back office. */
async function supportAccount(browser: Browser) {
  const context = await browser.newContext();
  const member = await context.newPage();
  const account = await signUpAndLogIn(member, "sup");
  const admin = await context.browser()!.newPage();
  await logIn(admin, "admin", "admin-demo-1");
  await admin.goto(`/dashboard/customers?q=${account.username}`, { waitUntil: "networkidle" });
  await admin.getByRole("link", { name: account.username, exact: true }).first().click();
  await admin.getByLabel("Role", { exact: true }).selectOption("support");
  await admin.getByRole("button", { name: "Change role" }).click();
  await expect(admin.getByText("Now Support")).toBeVisible();
  await admin.close();
  await context.close();
  return account;
}

let support: { username: string; password: string };
test.beforeAll(async ({ browser }) => {
  support = await supportAccount(browser);
});

/** The sidebar's list of pages; on a phone, after opening the menu. */
async function openNavigation(page: Page, phone: boolean): Promise<Locator> {
  if (phone) await page.getByRole("button", { name: /^Dashboard menu/ }).click();
  const nav = page.getByRole("navigation", { name: "Dashboard" });
  await expect(nav).toBeVisible();
  return nav;
}

/** Opens `group` in the sidebar unless it is open already, and returns its list of pages. */
async function groupList(nav: Locator, group: string): Promise<Locator> {
  const list = nav.getByRole("list", { name: group, exact: true });
  if (!(await list.isVisible()))
    await nav
      .locator("summary")
      .filter({ hasText: new RegExp(`^${group}$`) })
      .click();
  await expect(list).toBeVisible();
  return list;
}

for (const size of SIZES) {
  const phone = size.width < 1024;
  for (const [role, groups] of [
    ["admin", ADMIN_GROUPS],
    ["support", SUPPORT_GROUPS],
  ] as const) {
    test(`${role} at ${size.width}×${size.height} opens every staff page from the ${phone ? "phone's menu" : "sidebar"}`, async ({
      page,
    }) => {
      test.setTimeout(120_000);
      await page.setViewportSize(size);
      if (role === "admin") await logIn(page, "admin", "admin-demo-1");
      else await logIn(page, support.username, support.password);
      await page.goto("/dashboard", { waitUntil: "networkidle" });

      // Only the groups the role can use, in order; the member's own pages come first.
      let nav = await openNavigation(page, phone);
      await expect(nav.locator("summary")).toHaveText(groups.map(([group]) => group));
      await expect(nav.getByRole("list", { name: "Your hub" }).getByRole("link")).toHaveCount(8);
      // The account's e-mail and Logout stay on screen beside a list that scrolls.
      await expect(page.getByRole("button", { name: "Logout" })).toBeInViewport();
      if (phone) await page.getByRole("button", { name: /^Dashboard menu/ }).click();

      for (const [group, pages] of groups) {
        for (const label of pages) {
          nav = await openNavigation(page, phone);
          const list = await groupList(nav, group);
          await expect(list.getByRole("link")).toHaveCount(pages.length);
          const link = list.getByRole("link", { name: startsWith(label) });
          await link.scrollIntoViewIfNeeded();
          await expect(link).toBeInViewport();
          await link.click();
          await expect(page.getByRole("heading", { level: 1, name: startsWith(label) })).toBeVisible();
          // On a phone the menu closes and its button names the page; beside the page, the link is marked current.
          if (phone) await expect(page.getByRole("button", { name: `Dashboard menu, ${label}` })).toHaveAttribute("aria-expanded", "false");
          else await expect(link).toHaveAttribute("aria-current", "page");
        }
      }
      // The current page's group is open on a fresh load too, and its link in view.
      await page.reload({ waitUntil: "networkidle" });
      nav = await openNavigation(page, phone);
      const [lastGroup, lastPages] = groups.at(-1)!;
      await expect(
        nav.getByRole("list", { name: lastGroup, exact: true }).getByRole("link", { name: startsWith(lastPages.at(-1)!) }),
      ).toBeInViewport();
      await expect(page.getByRole("button", { name: "Logout" })).toBeInViewport();
    });
  }

  test(`the quick jump at ${size.width}×${size.height} finds an order, a customer and a licence`, async ({ page, browser, baseURL }) => {
    test.setTimeout(90_000);
    await page.setViewportSize(size);
    // Keys in stock for the order (an order waiting for stock from an earlier run takes the first), which make it a licence.
    await stockAsAdmin(
      browser,
      "Vertex Rust - 1 Week",
      [1, 2, 3].map((n) => `E2E-QJ-${uniqueName("k").toUpperCase()}-${n}`),
    );
    const email = `${uniqueName("qj")}@example.test`;
    const { orderId } = await buyWeeklyByWebhook(baseURL!, email);
    await logIn(page, "admin", "admin-demo-1");
    const mail = await mailFromMailbox(page, email, /Your Vertex key/);
    const key = (await mail.textContent())!.match(/Vertex Rust - [^:]+: (\S+)/)?.[1];
    expect(key).toBeTruthy();

    await page.goto("/dashboard/orders", { waitUntil: "networkidle" });
    const box = page.getByRole("combobox", { name: "Quick jump" });
    const results = page.getByRole("listbox", { name: "Quick jump results" });
    // "/" brings the focus to the box (on a phone it opens the menu it sits in); the box says so.
    await page.keyboard.press("/");
    await expect(box).toBeFocused();
    await expect(box).toHaveAttribute("aria-keyshortcuts", /\//);

    // An order by its number, chosen with the arrow keys.
    await box.fill(String(orderId));
    await expect(results.getByRole("option", { name: /^Order #/ }).first()).toBeVisible();
    await box.press("ArrowDown");
    await box.press("Enter");
    await expect(page).toHaveURL(new RegExp(`/dashboard/orders/shopify/${orderId}$`));
    await expect(page.getByRole("heading", { level: 1, name: /^Order #/ })).toBeVisible();

    // A customer by username, clicked, after Ctrl+K.
    await page.keyboard.press("Control+k");
    await expect(box).toBeFocused();
    await box.fill("member");
    await results.getByRole("option", { name: /^member\s*member@example\.com/ }).click();
    await expect(page.getByRole("heading", { level: 1, name: "member", exact: true })).toBeVisible();

    // A licence by its key: Enter with nothing chosen opens the record the key names.
    await page.keyboard.press("/");
    await box.fill(key!);
    await box.press("Enter");
    await expect(page).toHaveURL(/\/dashboard\/licences\?key=/);
    await expect(page.getByRole("heading", { level: 1, name: /^LICENCES/ })).toBeVisible();
    await expect(page.getByText(email).first()).toBeVisible();
  });
}

test("without script the quick jump is a plain form: a results page, and a number that names one order opens it", async ({
  browser,
  baseURL,
}) => {
  const prefix = uniqueName("nojs");
  await stockAsAdmin(
    browser,
    "Vertex Rust - 1 Week",
    [1, 2, 3].map((n) => `E2E-NOJS-${uniqueName("k").toUpperCase()}-${n}`),
  );
  const { orderId } = await buyWeeklyByWebhook(baseURL!, `${prefix}a@example.test`);
  await buyWeeklyByWebhook(baseURL!, `${prefix}b@example.test`);
  const scripted = await browser.newContext();
  await logIn(await scripted.newPage(), "admin", "admin-demo-1");
  const context = await browser.newContext({
    javaScriptEnabled: false,
    storageState: await scripted.storageState(),
    viewport: { width: 1280, height: 720 },
  });
  await scripted.close();
  const page = await context.newPage();
  await page.goto("/dashboard");
  // Two buyers whose e-mails start alike: the results page lists both.
  await page.getByRole("combobox", { name: "Quick jump" }).fill(prefix);
  await page.getByRole("combobox", { name: "Quick jump" }).press("Enter");
  await expect(page.getByRole("heading", { level: 1, name: /^SEARCH/ })).toBeVisible();
  const customers = page.getByRole("list", { name: "Customers" });
  await expect(customers.getByRole("link", { name: `${prefix}a@example.test` })).toBeVisible();
  await expect(customers.getByRole("link", { name: `${prefix}b@example.test` })).toBeVisible();

  await page.getByRole("combobox", { name: "Quick jump" }).fill(String(orderId));
  await page.getByRole("combobox", { name: "Quick jump" }).press("Enter");
  await expect(page).toHaveURL(new RegExp(`/dashboard/orders/shopify/${orderId}$`));
  await context.close();
});

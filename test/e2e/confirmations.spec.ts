// Destructive actions ask first, in a dialog that says what they cost, and answer with one toast
// that covers none of the page's forms and lists; a newer toast of the same kind replaces the older.
import { expect, type Locator, type Page, test } from "@playwright/test";
import { logIn, signUpAndLogIn, uniqueName } from "./helpers";

const WIDTHS = [
  { name: "1280 px", width: 1280, height: 900 },
  { name: "390 px", width: 390, height: 844 },
];

type Box = { x: number; y: number; width: number; height: number };
const box = async (locator: Locator): Promise<Box> => (await locator.boundingBox())!;
const overlap = (a: Box, b: Box) => a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;

/** The toasts on show, wherever they are (the page's corner or an open dialog). */
const toasts = (page: Page) => page.getByRole("list", { name: "Notifications" }).getByRole("listitem");

/** An admin stocks a fresh code of the weekly plan and finds its row among the available codes. */
async function freshCode(page: Page) {
  const code = `E2E-DEL-${uniqueName("c").toUpperCase()}`;
  await page.goto("/dashboard/manage-codes", { waitUntil: "networkidle" });
  await page.getByLabel("Variant", { exact: true }).selectOption({ label: "Vertex Rust - 1 Week" });
  await page.getByLabel("Product Codes (one per line)").fill(code);
  await page.getByRole("button", { name: "Add Codes" }).click();
  await expect(page.getByText(/Added 1 new codes for Vertex Rust - 1 Week/)).toBeVisible();
  const row = page.getByRole("list", { name: "Available codes" }).getByRole("listitem").filter({ hasText: code });
  await expect(row).toBeVisible();
  return { code, row };
}

for (const size of WIDTHS) {
  test(`${size.name}: deleting a code asks first, says what it costs, and answers with one toast clear of the list`, async ({
    page,
    context,
  }) => {
    await context.grantPermissions(["clipboard-read", "clipboard-write"]);
    await page.setViewportSize(size);
    await logIn(page, "admin", "admin-demo-1");
    const { code, row } = await freshCode(page);
    // The whole code reads on a phone too, and copies.
    expect(await row.getByText(code, { exact: true }).evaluate((el) => el.scrollWidth <= el.clientWidth)).toBe(true);

    const remove = row.getByRole("button", { name: `Delete code ${code}` });
    await remove.click();
    const dialog = page.getByRole("dialog", { name: "Delete this code?" });
    await expect(dialog).toContainText(`${code} leaves the stock for good`);
    await expect(dialog).toContainText("cannot be undone");
    // The safe choice has the focus; Escape closes and gives it back to the button that opened it.
    await expect(dialog.getByRole("button", { name: "Cancel" })).toBeFocused();
    await page.keyboard.press("Escape");
    await expect(dialog).toBeHidden();
    await expect(remove).toBeFocused();
    await expect(row).toBeVisible();

    await remove.click();
    await dialog.getByRole("button", { name: "Delete code" }).click();
    const deleted = toasts(page).filter({ hasText: "Code deleted successfully" });
    await expect(deleted).toBeVisible();
    await expect(row).toHaveCount(0);
    // Over the navigation bar: clear of the codes list (and so of its buttons), the card's own
    // button, and the bar's cart and account buttons.
    const list = page.getByRole("list", { name: "Available codes" });
    for (const target of [
      list,
      page.getByRole("button", { name: "Copy All Codes" }),
      page.getByRole("button", { name: /^Open cart/ }),
      page.getByRole("button", { name: "Account menu" }),
    ]) {
      expect(overlap(await box(deleted), await box(target))).toBe(false);
    }

    // Another success replaces it: one toast of a kind at a time.
    await list
      .getByRole("button", { name: /^Copy code / })
      .first()
      .click();
    await expect(toasts(page).filter({ hasText: "Code copied to clipboard!" })).toBeVisible();
    await expect(deleted).toHaveCount(0);
    await expect(toasts(page)).toHaveCount(1);
  });
}

test("390 px: the toast after starting two-factor set-up covers none of the QR code", async ({ page }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await signUpAndLogIn(page, "qr");
  await page.goto("/dashboard/2fa", { waitUntil: "networkidle" });
  await page.getByRole("button", { name: "Enable" }).click();
  const qr = page.getByRole("img", { name: "QR code for your authenticator app" });
  const toast = toasts(page).filter({ hasText: "Scan the QR code" });
  await expect(qr).toBeVisible();
  await expect(toast).toBeVisible();
  await qr.scrollIntoViewIfNeeded();
  expect(overlap(await box(toast), await box(qr))).toBe(false);
  expect(overlap(await box(toast), await box(page.getByLabel("6-digit code")))).toBe(false);
});

test("a refused confirmation keeps its dialog open with the reason asked for, and the toast shows inside it", async ({ page }) => {
  await logIn(page, "admin", "admin-demo-1");
  await page.goto("/dashboard/customers?q=member", { waitUntil: "networkidle" });
  await page.getByRole("link", { name: "member", exact: true }).first().click();
  await page.getByRole("button", { name: "Ban account" }).click();
  const dialog = page.getByRole("dialog", { name: "Ban member?" });
  await expect(dialog).toContainText("Every session of the account ends at once");
  await expect(dialog.getByLabel("Reason for the ban")).toBeFocused();
  // No reason: nothing is sent, the dialog stays and says why, in a toast of its own.
  await dialog.getByRole("button", { name: "Ban account" }).click();
  await expect(dialog).toBeVisible();
  await expect(dialog.getByRole("alert").filter({ hasText: "Please give a reason" }).first()).toBeVisible();
  await dialog.getByRole("button", { name: "Cancel" }).click();
  await expect(dialog).toBeHidden();
  await expect(page.getByText("Banned", { exact: true })).toHaveCount(0);
});

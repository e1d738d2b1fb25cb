import { expect, type Page, test } from "@playwright/test";
import { logIn, mailFromMailbox, openDemoCheckout, payDemoCheckout, signUpAndLogIn, uniqueName } from "./helpers";

const VARIANT = "Vertex HWID Spoofer - 30 Days";

async function stock(admin: Page, count: number) {
  await admin.goto("/dashboard/manage-codes", { waitUntil: "networkidle" });
  await admin.getByLabel("Variant", { exact: true }).selectOption({ label: VARIANT });
  await admin
    .getByLabel("Product Codes (one per line)")
    .fill(Array.from({ length: count }, (_, i) => `E2E-BO-${uniqueName("k").toUpperCase()}-${i}`).join("\n"));
  await admin.getByRole("button", { name: "Add Codes" }).click();
  await expect(admin.getByText(new RegExp(`Added ${count} new codes for ${VARIANT}`))).toBeVisible();
}

test("support's day: find the buyer by e-mail, open the order, resend the key, replace it, and see both in the timeline and the audit log", async ({
  page,
  context,
  browser,
}) => {
  const admin = await browser.newPage();
  await logIn(admin, "admin", "admin-demo-1");
  await stock(admin, 2);

  // A buyer pays in the demo checkout and gets a key by e-mail.
  const { email } = await signUpAndLogIn(page, "bobuyer");
  const checkout = await openDemoCheckout(page, context, "/product/vertex-hwid-spoofer", /30 Days/);
  await payDemoCheckout(checkout);
  const first = await mailFromMailbox(page, email, /Your Vertex key/);
  const key = (await first.textContent())!.match(new RegExp(`${VARIANT}: (\\S+)`))?.[1];
  const orderName = (await first.textContent())!.match(/order (#\d+)/)?.[1];
  expect(key && orderName).toBeTruthy();

  // "I paid but got no key": the admin finds the buyer by e-mail and opens the order.
  await admin.goto("/dashboard/customers", { waitUntil: "networkidle" });
  await admin.getByLabel("Find a customer").fill(email);
  await admin.getByRole("button", { name: "Search" }).click();
  await admin.getByRole("table", { name: "Customers" }).getByRole("row").filter({ hasText: email }).getByRole("link").first().click();
  await expect(admin.getByRole("heading", { level: 1 })).toBeVisible();
  await admin.getByRole("table", { name: "Orders" }).getByRole("link", { name: orderName! }).click();
  await expect(admin.getByRole("heading", { name: `Order ${orderName}` })).toBeVisible();
  const keys = admin.getByRole("table", { name: "Keys" });
  // Keys are masked until revealed.
  await expect(keys).not.toContainText(key!);

  await admin.getByRole("button", { name: "Resend key e-mail" }).click();
  await expect(admin.getByText("E-mail sent")).toBeVisible();

  await keys.getByRole("button", { name: "Replace" }).click();
  // Asked first, in a dialog that says what replacing costs, with the reason the buyer is told.
  const confirm = admin.getByRole("dialog", { name: /^Replace key / });
  await expect(confirm).toContainText("The key stops working at once");
  await confirm.getByLabel("Why replace?").fill("Key shared on a forum");
  await confirm.getByRole("button", { name: "Replace key" }).click();
  await expect(admin.getByText("Key replaced")).toBeVisible();
  await expect(confirm).toBeHidden();
  // The old key and its licence are revoked; the new key is delivered, its licence waiting for a first use.
  await expect(keys.getByText("Revoked", { exact: true })).toHaveCount(2);
  await expect(keys.getByRole("row").filter({ hasText: "Delivered" })).toContainText("Not activated");

  // The buyer has the new key by e-mail; the old one stopped working.
  const replacement = await mailFromMailbox(page, email, /was replaced/);
  const newKey = (await replacement.textContent())!.match(new RegExp(`${VARIANT}: (\\S+)`))?.[1];
  expect(newKey).toBeTruthy();
  expect(newKey).not.toBe(key);

  // Both actions are on the order's timeline and in the audit log.
  await admin.reload({ waitUntil: "networkidle" });
  const timeline = admin.getByRole("list", { name: "Timeline" });
  await expect(timeline.getByText("Sent an order's keys again")).toBeVisible();
  await expect(timeline.getByText("Replaced a key")).toBeVisible();
  await expect(timeline.getByText(/reason: Key shared on a forum/)).toBeVisible();

  await admin.goto("/dashboard/audit", { waitUntil: "networkidle" });
  const log = admin.getByRole("table", { name: "Audit log entries" });
  await expect(
    log
      .getByRole("row")
      .filter({ hasText: `Order ${orderName}` })
      .filter({ hasText: "Replaced a key" }),
  ).toBeVisible();
  await expect(
    log
      .getByRole("row")
      .filter({ hasText: `Order ${orderName}` })
      .filter({ hasText: "Sent an order's keys again" }),
  ).toBeVisible();
  await admin.close();
});

// Discord roles that follow the licence, on the simulated Discord: a member buys a plan, links
// Discord from the Security page (password first), and the simulated server shows the role on
// /dev/discord; a refund takes it away. A member of its own, so no licence from another run or test
// keeps the role justified.
import { expect, test } from "@playwright/test";
import { logIn, reloadUntilVisible, sendWebhook, signUpAndLogIn, uniqueName } from "./helpers";

const WEEKLY_VARIANT = 4710000000001;

test("a member's role follows the licence: linked, granted on purchase, taken by a refund", async ({ page, browser, baseURL }) => {
  // Stock a weekly code for the order (earlier runs may have sold the demo stock).
  const admin = await browser.newPage();
  await logIn(admin, "admin", "admin-demo-1");
  await admin.goto("/dashboard/manage-codes", { waitUntil: "networkidle" });
  await admin.getByLabel("Variant", { exact: true }).selectOption({ label: "Vertex Rust - 1 Week" });
  await admin.getByLabel("Product Codes (one per line)").fill(`DISCORD-E2E-${uniqueName("k").toUpperCase()}`);
  await admin.getByRole("button", { name: "Add Codes" }).click();
  await expect(admin.getByText(/Added 1 new code/)).toBeVisible();
  await admin.close();

  const member = await signUpAndLogIn(page, "discord");
  // Bought by a signed order webhook, as Shopify (and the demo checkout) sends it.
  const orderId = Date.now();
  const lineId = orderId + 1;
  await sendWebhook(baseURL!, "orders/paid", {
    id: orderId,
    name: `#${orderId % 100000}`,
    email: member.email,
    currency: "USD",
    total_price: "29.99",
    financial_status: "paid",
    line_items: [{ id: lineId, variant_id: WEEKLY_VARIANT, quantity: 1, title: "Vertex Rust", variant_title: "1 Week", price: "29.99" }],
  });

  await page.goto("/dashboard/security", { waitUntil: "networkidle" });
  const card = page.locator("div.rounded-xl").filter({ has: page.getByRole("heading", { name: "Discord" }) });
  await card.getByLabel("Your password").fill(member.password);
  await card.getByRole("button", { name: "Link Discord" }).click();
  await expect(page.getByText("Discord linked")).toBeVisible();

  // The member joined the simulated server with the role, in one step.
  const roles = page.getByLabel(`Roles of shop member ${member.username}`, { exact: true });
  await reloadUntilVisible(page, "/dev/discord", roles.getByText("Subscriber", { exact: true }));
  await reloadUntilVisible(page, "/dashboard/security", page.getByText("Your roles are up to date."));

  // A refund takes the role away.
  await sendWebhook(baseURL!, "refunds/create", { id: orderId + 2, order_id: orderId, refund_line_items: [{ line_item_id: lineId, quantity: 1 }] });
  await reloadUntilVisible(page, "/dev/discord", roles.getByText("No roles"));
});

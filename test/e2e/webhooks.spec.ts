import { expect, test } from "@playwright/test";
import { logIn, openDemoCheckout, payDemoCheckout, reloadUntilVisible, signUpAndLogIn, stockAsAdmin, uniqueName } from "./helpers";

test("an endpoint on the local receiver gets order.paid for a demo checkout, verified, and Redeliver sends it again", async ({
  page,
  context,
  browser,
  baseURL,
}) => {
  test.setTimeout(120_000);
  const admin = await browser.newPage();
  await logIn(admin, "admin", "admin-demo-1");
  await admin.goto("/dashboard/webhooks", { waitUntil: "networkidle" });
  await expect(admin.getByRole("heading", { level: 1, name: /Webhooks/i })).toBeVisible();
  const description = uniqueName("e2e-hook");
  // The query names this run's endpoint on the receiver page (earlier runs may have left theirs).
  await admin.getByLabel("Endpoint URL").fill(`${baseURL}/dev/webhooks?run=${description}`);
  await admin.getByLabel("Description (optional)").fill(description);
  await admin.getByRole("checkbox", { name: /Order paid/ }).check();
  await admin.getByRole("button", { name: "Add endpoint" }).click();
  await expect(admin.getByText("Endpoint added")).toBeVisible();
  await expect(admin.getByLabel("Signing secret")).toHaveText(/^whsec_/);
  const endpoint = admin.getByRole("article").filter({ hasText: description });
  await expect(endpoint.getByText("Enabled")).toBeVisible();

  await stockAsAdmin(browser, "Vertex HWID Spoofer - 30 Days", [`E2E-HOOK-${uniqueName("k").toUpperCase()}`]);
  const { email } = await signUpAndLogIn(page, "hookbuyer");
  const checkout = await openDemoCheckout(page, context, "/product/vertex-hwid-spoofer", /30 Days/);
  await payDemoCheckout(checkout);

  // The receiver shows the delivery, checked with the endpoint's secret.
  const receipts = page
    .getByRole("list", { name: "Deliveries received" })
    .getByRole("listitem")
    .filter({ hasText: email })
    .filter({ hasText: description });
  const paid = receipts.filter({ hasText: "order.paid" });
  await reloadUntilVisible(page, "/dev/webhooks", paid.first());
  await expect(paid).toHaveCount(1);
  await expect(paid.getByText("Signature verified")).toBeVisible();
  const webhookId = (await paid.textContent())!.match(/msg_[A-Za-z0-9]+/)![0];

  // The endpoint's log has it, delivered; Redeliver sends the same message again.
  await admin.reload({ waitUntil: "networkidle" });
  const delivery = endpoint.getByRole("listitem").filter({ hasText: webhookId });
  await expect(delivery.getByText("Delivered")).toBeVisible();
  await delivery.getByRole("button", { name: /^Redeliver order\.paid/ }).click();
  await expect(admin.getByText("Sent again")).toBeVisible();
  await expect(async () => {
    await page.goto("/dev/webhooks");
    await expect(receipts.filter({ hasText: webhookId })).toHaveCount(2, { timeout: 1000 });
  }).toPass();
  for (const receipt of await receipts.filter({ hasText: webhookId }).all())
    await expect(receipt.getByText("Signature verified")).toBeVisible();
  await admin.reload({ waitUntil: "networkidle" });
  await expect(delivery).toContainText("2 attempts");

  // Deleted, so later runs on this dev server deliver to their own endpoint only.
  await endpoint.getByRole("button", { name: "Delete", exact: true }).click();
  await admin.getByRole("button", { name: "Delete endpoint" }).click();
  await expect(admin.getByText("Endpoint deleted")).toBeVisible();
  await expect(endpoint).toHaveCount(0);
  await admin.close();
});

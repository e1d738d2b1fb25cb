import { expect, test } from "@playwright/test";
import { logIn, mailFromMailbox, openDemoCheckout, payDemoCheckout, signUpAndLogIn, uniqueName } from "./helpers";

test("paying in the demo checkout mails the key and shows it on Subscriptions", async ({ page, context, browser }) => {
  // Stock up first (earlier runs may have sold the demo stock and left orders waiting).
  const admin = await browser.newPage();
  await logIn(admin, "admin", "admin-demo-1");
  await admin.goto("/dashboard/manage-codes", { waitUntil: "networkidle" });
  await admin.getByLabel("Variant", { exact: true }).selectOption({ label: "Vertex HWID Spoofer - 30 Days" });
  await admin
    .getByLabel("Product Codes (one per line)")
    .fill(Array.from({ length: 5 }, (_, i) => `E2E-STOCK-${uniqueName("s")}-${i}`).join("\n"));
  await admin.getByRole("button", { name: "Add Codes" }).click();
  await expect(admin.getByText(/Added 5 new codes for Vertex HWID Spoofer - 30 Days/)).toBeVisible();
  await admin.close();

  // A fresh member, so the new subscription is easy to find.
  const { email } = await signUpAndLogIn(page, "buyer");

  const checkout = await openDemoCheckout(page, context, "/product/vertex-hwid-spoofer", /30 Days/);
  await expect(checkout.getByLabel("E-mail for your key")).toHaveValue(email);
  await payDemoCheckout(checkout);

  const mail = await mailFromMailbox(page, email, /Your Vertex key/);
  const key = (await mail.textContent())!.match(/Vertex HWID Spoofer - 30 Days: (\S+)/)?.[1];
  expect(key).toBeTruthy();
  // The e-mail, the buyer's page and the admin's page all name the order the same way.
  const orderName = (await mail.textContent())!.match(/order (#\d+)/)?.[1];
  expect(orderName).toBeTruthy();

  await page.goto("/dashboard/subscriptions");
  await expect(page.getByText("Active", { exact: true })).toBeVisible();
  await expect(page.getByText(key!)).toBeVisible();
  await expect(page.getByText("Vertex HWID Spoofer — 30 Days")).toBeVisible();
  await expect(page.getByText(`Order ${orderName}`, { exact: true })).toBeVisible();

  const adminAgain = await browser.newPage();
  await logIn(adminAgain, "admin", "admin-demo-1");
  await adminAgain.goto("/dashboard/manage-codes", { waitUntil: "networkidle" });
  await expect(adminAgain.getByRole("list", { name: "Sold codes" }).getByRole("listitem").filter({ hasText: key! })).toContainText(
    `Order ${orderName}`,
  );
  await adminAgain.close();
});

test("a crypto order paid on the simulated chain settles by itself: the tracker shows the key, which also arrives by e-mail", async ({
  page,
  browser,
}) => {
  const admin = await browser.newPage();
  await logIn(admin, "admin", "admin-demo-1");
  await admin.goto("/dashboard/manage-codes", { waitUntil: "networkidle" });
  await admin.getByLabel("Variant", { exact: true }).selectOption({ label: "Vertex Rust - Lifetime" });
  await admin.getByLabel("Product Codes (one per line)").fill(`E2E-CHAIN-${uniqueName("c").toUpperCase()}`);
  await admin.getByRole("button", { name: "Add Codes" }).click();
  await expect(admin.getByText(/Added 1 new codes for Vertex Rust - Lifetime/)).toBeVisible();

  const { email } = await signUpAndLogIn(page, "cryptobuyer");
  await page.goto("/product/vertex-rust", { waitUntil: "networkidle" });
  await page.getByRole("radio", { name: /Lifetime/ }).click();
  await page.getByRole("button", { name: "Pay with Cryptocurrency" }).click();
  const dialog = page.getByRole("dialog", { name: "Pay with Cryptocurrency" });
  await expect(dialog.getByRole("link", { name: "Open in wallet" })).toHaveAttribute("href", /^bitcoin:bc1q[a-z0-9]+\?amount=0\.\d+$/);
  await expect(dialog.getByRole("img", { name: /QR code to pay .* BTC/ })).toBeVisible();
  await expect(dialog.getByText("(demo rate, for trying the shop locally)")).toBeVisible();
  const number = (await dialog
    .getByText(/^CRYPTO-/)
    .first()
    .textContent())!.trim();
  expect(number).toMatch(/^CRYPTO-[A-Z0-9]{12}$/);
  // The other coin is an order of its own, at a Litecoin address.
  await dialog.getByRole("radio", { name: "Litecoin (LTC)" }).click();
  await expect(dialog.getByRole("link", { name: "Open in wallet" })).toHaveAttribute("href", /^litecoin:ltc1q/);
  await dialog.getByRole("radio", { name: "Bitcoin (BTC)" }).click();
  await expect(dialog.getByText(/^CRYPTO-/).first()).toHaveText(number);
  await dialog.getByRole("link", { name: "Go to Crypto Tracker" }).click();
  await expect(page.getByText("Please complete your payment and we will verify it shortly.")).toBeVisible();

  // Paid and mined on the simulated chain, in another tab; the tracker notices by itself.
  const chain = await browser.newPage();
  await chain.goto("/dev/chain", { waitUntil: "networkidle" });
  const row = chain.getByRole("listitem").filter({ hasText: number });
  await row.getByRole("button", { name: "Pay in full" }).click();
  await expect(chain.getByRole("listitem").filter({ hasText: number })).toContainText(/paid (0\.\d+) of \1 BTC \(unconfirmed\)/);
  await chain.getByRole("button", { name: "Mine a BTC block" }).click();
  await chain.close();

  await expect(page.getByRole("button", { name: "Copy product key" })).toBeVisible({ timeout: 30_000 });
  await expect(page.getByText("Complete", { exact: true }).first()).toBeVisible();
  const key = (await page.getByRole("button", { name: "Copy product key" }).locator("xpath=..").textContent())!.trim();
  expect(key).not.toBe("");
  const mail = await mailFromMailbox(page, email, /Your Vertex key/);
  await expect(mail).toContainText(key);
  await admin.close();
});

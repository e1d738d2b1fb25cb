import { expect, test } from "@playwright/test";
import { logIn, mailFromMailbox, signUpAndLogIn, uniqueName } from "./helpers";

test("paying in the demo checkout mails the key and shows it on Subscriptions", async ({ page, context, browser }) => {
  // Stock up first (earlier runs may have sold the demo stock and left orders waiting).
  const admin = await browser.newPage();
  await logIn(admin, "admin", "admin-demo-1");
  await admin.goto("/dashboard/manage-codes", { waitUntil: "networkidle" });
  await admin.getByLabel("Variant", { exact: true }).selectOption({ label: "Vertex HWID Spoofer - 30 Days" });
  await admin.getByLabel("Product Codes (one per line)").fill(Array.from({ length: 5 }, (_, i) => `E2E-STOCK-${uniqueName("s")}-${i}`).join("\n"));
  await admin.getByRole("button", { name: "Add Codes" }).click();
  await expect(admin.getByText(/Added 5 new codes for Vertex HWID Spoofer - 30 Days/)).toBeVisible();
  await admin.close();

  // A fresh member, so the new subscription is easy to find.
  const { email } = await signUpAndLogIn(page, "buyer");

  await page.goto("/product/vertex-hwid-spoofer", { waitUntil: "networkidle" });
  await page.getByRole("radio", { name: /30 Days/ }).click();
  const checkoutTab = context.waitForEvent("page");
  await page.getByRole("button", { name: "BUY NOW" }).click();
  await page.getByRole("button", { name: "Continue to Checkout" }).click();
  const checkout = await checkoutTab;
  await checkout.waitForURL(/\/checkout\/demo\//);
  await expect(checkout.getByLabel("E-mail for your key")).toHaveValue(email);
  await checkout.getByRole("button", { name: /^Pay / }).click();
  await expect(checkout.getByText("Paid. Your key is on its way to your e-mail.")).toBeVisible();

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
  await expect(adminAgain.getByRole("list", { name: "Sold codes" }).getByRole("listitem").filter({ hasText: key! })).toContainText(`Order ${orderName}`);
  await adminAgain.close();
});

test("an admin adds codes and fulfils a member's crypto order", async ({ page }) => {
  await logIn(page, "member", "member-demo-1");
  await page.goto("/product/vertex-rust", { waitUntil: "networkidle" });
  await page.getByRole("radio", { name: /Lifetime/ }).click();
  await page.getByRole("button", { name: "Pay with Cryptocurrency" }).click();
  const dialog = page.getByRole("dialog", { name: "Pay with Cryptocurrency" });
  const number = (await dialog.locator("p.font-mono").first().textContent())!.trim();
  expect(number).toMatch(/^CRYPTO-[A-Z0-9]{12}$/);
  await dialog.getByRole("radio", { name: "Litecoin (LTC)" }).click();
  await expect(dialog.getByText("Send to this LTC address")).toBeVisible();
  await dialog.getByRole("link", { name: "Go to Crypto Tracker" }).click();
  await expect(page.getByText("Please complete your payment and we will verify it shortly.")).toBeVisible();
  await page.getByLabel("Paid already? Enter your transaction ID").fill(Array.from({ length: 64 }, () => Math.floor(Math.random() * 16).toString(16)).join(""));
  await page.getByRole("button", { name: "Submit Payment" }).click();
  await expect(page.getByText("Your payment was submitted. Our support team is verifying it now.")).toBeVisible();

  await page.getByRole("button", { name: "Account menu" }).click();
  await page.getByRole("menuitem", { name: "Logout" }).click();
  await expect(page.getByText("Successfully signed out")).toBeVisible();
  await logIn(page, "admin", "admin-demo-1");
  await page.goto("/dashboard/manage-codes", { waitUntil: "networkidle" });

  const code = `E2E-${uniqueName("k").toUpperCase()}`;
  await page.getByLabel("Variant", { exact: true }).selectOption({ label: "Vertex Rust - Default Title" });
  await page.getByLabel("Product Codes (one per line)").fill(`${code}\n${code}\n`);
  await page.getByRole("button", { name: "Add Codes" }).click();
  await expect(page.getByText("Added 1 new codes for Vertex Rust - Default Title")).toBeVisible();
  await expect(page.getByText("Skipped: 1 duplicate(s) in input, 0 already in database")).toBeVisible();
  await expect(page.getByLabel("Product Codes (one per line)")).toHaveValue("");

  // Fulfil by hand with a key typed in (one that never was in stock, so no earlier order can
  // have taken it).
  const typed = `E2E-HAND-${uniqueName("h").toUpperCase()}`;
  const order = page.getByRole("listitem").filter({ hasText: number });
  await order.getByLabel(`Product code for ${number}`).fill(typed);
  await order.getByRole("button", { name: "Fulfill" }).click();
  await expect(page.getByText(`Order ${number} fulfilled successfully`)).toBeVisible();
  // Gone from the queue (it now shows among the sold codes instead).
  await expect(page.getByLabel(`Product code for ${number}`)).toHaveCount(0);
  await expect(page.getByRole("listitem").filter({ hasText: typed })).toContainText(`Order ${number}`);

  await page.goto(`/dashboard/crypto-tracker?order=${number}`);
  await expect(page.getByText("Complete", { exact: true })).toBeVisible();
  await expect(page.getByText(/Your key appears here/)).toHaveCount(0);
  await expect(page.getByText(typed)).toBeVisible();
});

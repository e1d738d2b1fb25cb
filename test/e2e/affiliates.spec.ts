// The affiliate programme end to end: a creator applies, an admin approves them, a buyer follows
// their link and pays through the demo checkout with the discount, the creator sees the commission
// held, and 30 days later (the development build's test clock) withdraws it to their reseller
// balance and buys keys with it.
import { expect, test } from "@playwright/test";
import { logIn, openDemoCheckout, reloadUntilVisible, signUpAndLogIn, stockAsAdmin, uniqueName } from "./helpers";

test("a creator applies, is approved, is paid for a referred order and spends the commission on keys", async ({ page, browser }) => {
  // Four members, two checkouts and the fulfilment queue: a long journey.
  test.setTimeout(240_000);
  // The creator applies from the affiliate page.
  await signUpAndLogIn(page, "creator");
  await page.goto("/affiliate", { waitUntil: "networkidle" });
  await page.getByRole("link", { name: "Apply now" }).click();
  await expect(page).toHaveURL(/\/dashboard\/affiliate$/);
  await page.waitForLoadState("networkidle");
  const code = uniqueName("CR").slice(0, 20);
  await page.getByLabel("Your code").fill(code);
  await page.getByLabel("Channel").fill("youtube.com/@creator");
  await page.getByLabel("Audience").fill("20k Rust players");
  await page.getByLabel("A few words").fill("I review Rust tools every week.");
  await page.getByRole("button", { name: "Send application" }).click();
  // The page itself answers: the form gives way to the application's state.
  await expect(page.getByText("Your application is being reviewed")).toBeVisible();

  // An admin approves them at 35% commission (the buyer's discount stays 10%), and stocks the plan.
  const admin = await (await browser.newContext()).newPage();
  await logIn(admin, "admin", "admin-demo-1");
  await admin.goto("/dashboard/affiliates", { waitUntil: "networkidle" });
  // Beside the sidebar on a laptop, each affiliate is a card with its decision forms in reach.
  const row = admin.getByRole("list", { name: "Affiliates" }).getByRole("listitem").filter({ hasText: code });
  await row.getByLabel("Commission %").fill("35");
  await row.getByRole("button", { name: "Approve" }).click();
  await expect(admin.getByText(`${code} is now approved.`)).toBeVisible();
  await stockAsAdmin(browser, "Vertex Rust - Lifetime", [`E2E-AFF-${uniqueName("k").toUpperCase()}`]);

  // The creator's dashboard shows the link to share.
  await page.reload({ waitUntil: "networkidle" });
  const link = page.getByText(new RegExp(`/r/${code}$`));
  await expect(link).toBeVisible();
  const path = new URL((await link.textContent())!).pathname;

  // A buyer follows the link and pays the lifetime plan through the demo checkout, 10% off.
  const buyerContext = await browser.newContext();
  const buyer = await buyerContext.newPage();
  await signUpAndLogIn(buyer, "referred");
  await buyer.goto(path);
  await expect(buyer).toHaveURL(/\/$/);
  const checkout = await openDemoCheckout(buyer, buyerContext, "/product/vertex-rust", /Lifetime/);
  await expect(checkout.getByText(`(10% off)`)).toBeVisible();
  await checkout.getByRole("button", { name: /^Pay .*224\.99/ }).click();
  await expect(checkout.getByText("Paid. Your key is on its way to your e-mail.")).toBeVisible();

  // The creator sees the commission held: 35% of $224.99.
  await reloadUntilVisible(
    page,
    "/dashboard/affiliate",
    page.getByRole("list", { name: "Referred orders" }).or(page.getByRole("table", { name: "Referred orders" })),
  );
  await expect(page.getByText("$78.74").first()).toBeVisible();
  await expect(page.getByRole("button", { name: "Withdraw $0.00 to reseller balance" })).toBeDisabled();

  // Thirty-one days later it is available; the creator moves it to their reseller balance.
  await page.goto("/dev/clock");
  await page.getByLabel("Days ahead").fill("31");
  await page.getByRole("button", { name: "Set the clock" }).click();
  await expect(page.getByText("This browser is 31 day(s) ahead.")).toBeVisible();
  await page.goto("/dashboard/affiliate", { waitUntil: "networkidle" });
  await page.getByRole("button", { name: "Withdraw $78.74 to reseller balance" }).click();
  await expect(page.getByText("$78.74 was added to your reseller balance.")).toBeVisible();

  // And buys five weekly keys with it (50% reseller discount: 5 × $15.00).
  await page.goto("/dashboard/resell", { waitUntil: "networkidle" });
  await expect(page.getByText("Affiliate commission")).toBeVisible();
  await page.getByRole("radio", { name: "Weekly License" }).check();
  await page.getByRole("button", { name: "Generate Keys" }).click();
  await expect(page.getByText("Generated 5 key(s) successfully")).toBeVisible();
  await expect(page.getByText("$3.74").first()).toBeVisible();
});

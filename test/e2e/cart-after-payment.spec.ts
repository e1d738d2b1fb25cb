// After a paid checkout the cart gives up what the order bought, in every tab, and the paid
// checkout's page shows the order's keys to the buyer who placed it (decision 045).
import { expect, test } from "@playwright/test";
import { logIn, payDemoCheckout, stockAsAdmin, uniqueName } from "./helpers";

test("the cart empties once its checkout is paid, and the order's keys show where it was paid", async ({ page, context, browser }) => {
  const code = `E2E-CART-${uniqueName("k").toUpperCase()}`;
  await stockAsAdmin(browser, "Vertex HWID Spoofer - 30 Days", [code]);
  await logIn(page, "member", "member-demo-1");
  await page.goto("/product/vertex-hwid-spoofer", { waitUntil: "networkidle" });
  await page.getByRole("radio", { name: /30 Days/ }).click();
  await page.getByRole("button", { name: "ADD TO CART" }).click();
  await page.getByRole("button", { name: "Continue to Checkout" }).click();
  await page.getByRole("button", { name: /Open cart, 1 item/ }).click();
  const drawer = page.getByRole("dialog", { name: "Shopping Cart" });
  const checkoutTab = context.waitForEvent("page");
  await drawer.getByRole("button", { name: "Checkout Securely" }).click();
  const checkout = await checkoutTab;
  await checkout.waitForURL(/\/checkout\/demo\//);

  await payDemoCheckout(checkout);
  // The buyer who placed it sees the key here as soon as it is handed out.
  const keys = checkout.getByRole("list", { name: "Your keys" });
  await expect(keys).toContainText("Vertex HWID Spoofer - 30 Days");
  // Back in the shop's tab (and on every page after): nothing left to pay for twice.
  await expect(page.getByRole("button", { name: "Open cart, 0 items" })).toBeVisible();
  await page.goto("/", { waitUntil: "networkidle" });
  await expect(page.getByRole("button", { name: "Open cart, 0 items" })).toBeVisible();
});

import { expect, test } from "@playwright/test";
import { logIn } from "./helpers";

test("home -> product -> login required -> sign in -> cart -> demo checkout", async ({ page, context }) => {
  await page.goto("/", { waitUntil: "networkidle" });
  await page.getByRole("link", { name: "Get Started", exact: true }).click();
  await expect(page).toHaveURL(/\/product\/vertex-rust$/);

  await page.getByRole("radio", { name: /30 Days/ }).click();
  await expect(page.getByRole("radio", { name: /30 Days/ })).toHaveAttribute("aria-checked", "true");
  await expect(page.locator("h1 + p")).toHaveText("$89.99");

  await page.getByRole("button", { name: "ADD TO CART" }).click();
  await expect(page.getByText("Please login to add items to your cart")).toBeVisible();
  await expect(page).toHaveURL(/\/auth$/);

  await logIn(page, "member", "member-demo-1");
  await page.goto("/product/vertex-rust", { waitUntil: "networkidle" });
  await page.getByRole("radio", { name: /30 Days/ }).click();
  await page.getByRole("button", { name: "ADD TO CART" }).click();
  const dialog = page.getByRole("dialog", { name: "Important Checkout Information" });
  await expect(dialog).toBeVisible();
  await dialog.getByRole("button", { name: "Continue to Checkout" }).click();
  await expect(page.getByText("Vertex Rust added to your cart")).toBeVisible();

  await page.getByRole("button", { name: /Open cart, 1 item/ }).click();
  const drawer = page.getByRole("dialog", { name: "Shopping Cart" });
  await expect(drawer.getByText("1 item in your cart")).toBeVisible();
  await expect(drawer.getByText("RECOMMENDED")).toBeVisible();
  await drawer.getByRole("button", { name: "Increase quantity" }).click();
  await expect(drawer.getByText("2 items in your cart")).toBeVisible();
  await expect(drawer.getByText("USD 179.98")).toBeVisible();
  await drawer.getByRole("button", { name: "Decrease quantity" }).click();
  await expect(drawer.getByText("1 item in your cart")).toBeVisible();

  const checkoutTab = context.waitForEvent("page");
  await drawer.getByRole("button", { name: "Checkout Securely" }).click();
  const checkout = await checkoutTab;
  await checkout.waitForURL(/\/checkout\/demo\/[A-Za-z0-9_-]+\?channel=online_store$/);
  await expect(checkout.getByText("Vertex Rust — 30 Days × 1")).toBeVisible();
  await expect(checkout.getByRole("button", { name: "Pay USD 89.99" })).toBeVisible();
  // The drawer closes once the checkout is open.
  await expect(drawer).toBeHidden();
});

test("the cart survives a reload and can be emptied line by line", async ({ page }) => {
  await logIn(page, "member", "member-demo-1");
  await page.goto("/product/vertex-hwid-spoofer", { waitUntil: "networkidle" });
  await page.getByRole("button", { name: "ADD TO CART" }).click();
  await page.getByRole("button", { name: "Continue to Checkout" }).click();
  await page.reload({ waitUntil: "networkidle" });
  await page.getByRole("button", { name: /Open cart, 1 item/ }).click();
  const drawer = page.getByRole("dialog", { name: "Shopping Cart" });
  await drawer.getByRole("button", { name: /Remove Vertex HWID Spoofer/ }).click();
  await expect(drawer.getByText("Your cart is empty")).toBeVisible();
  await expect(drawer.getByRole("button", { name: "Checkout Securely" })).toBeDisabled();
});

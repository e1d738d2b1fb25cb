import { readFileSync } from "node:fs";
import { type Browser, type BrowserContext, expect, type Locator, type Page } from "@playwright/test";
import { signWebhookBody } from "../../app/server/platform/shopify-hmac.server";

export function uniqueName(prefix: string): string {
  return `${prefix}${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
}

/**
 * Opens the local mailbox at the newest message to `to` with `subject`. Some mail is written after
 * the answer that causes it (a reset link; keys, which the fulfilment queue hands out moments after
 * a payment), so the mailbox is reloaded until it is there.
 */
export async function mailFromMailbox(page: Page, to: string, subject: RegExp) {
  const message = page.getByTestId("mail").filter({ hasText: to }).filter({ hasText: subject }).first();
  await reloadUntilVisible(page, "/dev/mail", message);
  return message;
}

/** Opens `path` again until `locator` shows on it: for what arrives after the answer that causes it. */
export async function reloadUntilVisible(page: Page, path: string, locator: Locator) {
  await expect(async () => {
    await page.goto(path);
    await expect(locator).toBeVisible({ timeout: 1000 });
  }).toPass();
}

/** The first link of the newest message to `to` with `subject` in the local mailbox. */
export async function linkFromMailbox(page: Page, to: string, subject: RegExp): Promise<string> {
  const message = await mailFromMailbox(page, to, subject);
  const href = await message.getByRole("link").first().getAttribute("href");
  if (!href) throw new Error(`no link in the mail to ${to}`);
  return href;
}

export async function logIn(page: Page, emailOrUsername: string, password: string) {
  await page.goto("/auth");
  await page.getByLabel("Email or Username").fill(emailOrUsername);
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Sign In", exact: true }).click();
  await expect(page.getByText("Welcome back!")).toBeVisible();
}

/** Fills in and sends the sign-up form; the account then waits for its address to be confirmed. */
export async function signUp(page: Page, member: { username: string; email: string; password: string }) {
  // Each new member signs up from their own connection: a whole run signs up more members than
  // the shop lets one connection create in an hour.
  await page.setExtraHTTPHeaders({ "CF-Connecting-IP": uniqueName("e2e-signup") });
  // Scripts loaded first: the form then answers in place, as a member sees it.
  await page.goto("/auth?mode=signup", { waitUntil: "networkidle" });
  await page.getByLabel("Username").fill(member.username);
  await page.getByLabel("Email").fill(member.email);
  await page.getByLabel("Password").fill(member.password);
  await page.getByRole("button", { name: "Create Account" }).click();
  await expect(page.getByText("Account Created!")).toBeVisible();
}

/** Signs up a fresh member, verifies the address from the mailbox and signs in. */
export async function signUpAndLogIn(page: Page, prefix: string): Promise<{ username: string; email: string; password: string }> {
  const username = uniqueName(prefix);
  const member = { username, email: `${username}@example.test`, password: `${prefix}-password-1` };
  await signUp(page, member);
  await confirmFromMailbox(page, member.email, member.password);
  await logIn(page, member.username, member.password);
  return member;
}

/** Opens the newest verification link mailed to `email`, and confirms with the sign-up password on the page it leads to. */
export async function confirmFromMailbox(page: Page, email: string, password: string) {
  await page.goto(await linkFromMailbox(page, email, /Verify your/));
  await expect(page).toHaveURL(/\/auth\/verify$/);
  await expect(page.getByRole("heading", { name: "Confirm your e-mail address" })).toBeVisible();
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Confirm", exact: true }).click();
  await expect(page).toHaveURL(/\/auth$/);
  await expect(page.getByText("Email Verified")).toBeVisible();
}

/**
 * Collects what React reports in the browser console about the document itself: hydration
 * mismatches and <script> elements it was asked to create. Read the array after the journey.
 */
export function reactDocumentWarnings(page: Page): string[] {
  const found: string[] = [];
  page.on("console", (message) => {
    const text = message.text();
    if (/didn't match the client|Hydration failed|Encountered a script tag/.test(text)) {
      found.push(`${page.url()}: ${text.split("\n")[0]}`);
    }
  });
  return found;
}

/** Signs in as the demo member, puts the main product in the cart and opens the cart drawer. */
export async function openCartWithMainProduct(page: Page) {
  await logIn(page, "member", "member-demo-1");
  await page.goto("/product/vertex-rust", { waitUntil: "networkidle" });
  await page.getByRole("button", { name: "ADD TO CART" }).click();
  await page.getByRole("button", { name: "Continue to Checkout" }).click();
  await page.getByRole("button", { name: /Open cart, 1 item/ }).click();
  return page.getByRole("dialog", { name: "Shopping Cart" });
}

/** Buys one plan with BUY NOW and returns the demo checkout that opens in a new tab, not yet paid. */
export async function openDemoCheckout(page: Page, context: BrowserContext, productPath: string, plan: RegExp): Promise<Page> {
  await page.goto(productPath, { waitUntil: "networkidle" });
  await page.getByRole("radio", { name: plan }).click();
  const checkoutTab = context.waitForEvent("page");
  await page.getByRole("button", { name: "BUY NOW" }).click();
  await page.getByRole("button", { name: "Continue to Checkout" }).click();
  const checkout = await checkoutTab;
  await checkout.waitForURL(/\/checkout\/demo\//);
  return checkout;
}

/** An admin adds `codes` to the stock of the variant the picker names `variant`, in a page of its own. */
export async function stockAsAdmin(browser: Browser, variant: string, codes: string[]) {
  const admin = await browser.newPage();
  await logIn(admin, "admin", "admin-demo-1");
  await admin.goto("/dashboard/manage-codes", { waitUntil: "networkidle" });
  await admin.getByLabel("Variant", { exact: true }).selectOption({ label: variant });
  await admin.getByLabel("Product Codes (one per line)").fill(codes.join("\n"));
  await admin.getByRole("button", { name: "Add Codes" }).click();
  await expect(admin.getByText(new RegExp(`Added ${codes.length} new codes`))).toBeVisible();
  await admin.close();
}

/** Pays the demo checkout: the app gets the same signed order webhook Shopify would send. */
export async function payDemoCheckout(checkout: Page) {
  await checkout.getByRole("button", { name: /^Pay / }).click();
  await expect(checkout.getByText("Paid. Your key is on its way to your e-mail.")).toBeVisible();
}

/** An admin credits a reseller's balance on the member's page in the back office, found by username. */
export async function creditFromCustomerPage(admin: Page, username: string, amount: string) {
  await admin.goto(`/dashboard/customers?q=${encodeURIComponent(username)}`, { waitUntil: "networkidle" });
  // A table from 640 px up, a card per customer below: whichever shows.
  await admin.getByRole("link", { name: username, exact: true }).first().click();
  await admin.getByLabel("Amount to credit (USD)").fill(amount);
  await admin.getByRole("button", { name: "Credit", exact: true }).click();
  await expect(admin.getByText("Balance credited")).toBeVisible();
}

/** The webhook secret the local shop checks signatures with (.dev.vars, made by `npm run dev`). */
function webhookSecret(): string {
  const line = readFileSync(".dev.vars", "utf8")
    .split("\n")
    .find((l) => l.startsWith("SHOPIFY_WEBHOOK_SECRET="));
  return JSON.parse(line!.slice("SHOPIFY_WEBHOOK_SECRET=".length)) as string;
}

/** Sends Shopify's `topic` webhook for `payload`, signed as Shopify signs it. */
async function sendWebhook(baseURL: string, topic: string, payload: unknown) {
  const body = JSON.stringify(payload);
  const response = await fetch(new URL("/webhooks/shopify", baseURL), {
    method: "POST",
    headers: {
      "Content-Type": "application/json",
      "X-Shopify-Topic": topic,
      "X-Shopify-Webhook-Id": crypto.randomUUID(),
      "X-Shopify-Hmac-Sha256": await signWebhookBody(body, webhookSecret()),
    },
    body,
  });
  expect(response.status).toBe(200);
}

/** The demo catalogue's weekly plan of Vertex Rust, as Shopify numbers it. */
const WEEKLY_VARIANT = 4710000000001;

/** A weekly plan bought by `email`, by a signed orders/paid webhook as Shopify sends it. */
export async function buyWeeklyByWebhook(baseURL: string, email: string): Promise<{ orderId: number; lineId: number }> {
  const orderId = Date.now();
  const lineId = orderId + 1;
  await sendWebhook(baseURL, "orders/paid", {
    id: orderId,
    name: `#${orderId % 100000}`,
    email,
    currency: "USD",
    total_price: "29.99",
    financial_status: "paid",
    line_items: [{ id: lineId, variant_id: WEEKLY_VARIANT, quantity: 1, title: "Vertex Rust", variant_title: "1 Week", price: "29.99" }],
  });
  return { orderId, lineId };
}

/** That order refunded in full, by a signed refunds/create webhook. */
export async function refundByWebhook(baseURL: string, order: { orderId: number; lineId: number }) {
  await sendWebhook(baseURL, "refunds/create", {
    id: order.orderId + 2,
    order_id: order.orderId,
    refund_line_items: [{ line_item_id: order.lineId, quantity: 1 }],
  });
}

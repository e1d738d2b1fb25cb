import { expect, test } from "@playwright/test";
import {
  confirmFromMailbox,
  linkFromMailbox,
  logIn,
  mailFromMailbox,
  openDemoCheckout,
  payDemoCheckout,
  signUp,
  stockAsAdmin,
  uniqueName,
} from "./helpers";

test("a card buyer's address registered by someone else: a link scanner verifies nothing, and the owner who confirms gets the keys", async ({
  page,
  context,
  browser,
  playwright,
}) => {
  // Three people and a scanner, each with their own pages: longer than one journey.
  test.setTimeout(180_000);
  // Stock for the purchase (earlier runs may have sold the demo stock).
  await stockAsAdmin(browser, "Vertex HWID Spoofer - 30 Days", [`E2E-VERIFY-${uniqueName("v").toUpperCase()}`]);

  // A card purchase whose key goes to an address that has no account.
  const email = `${uniqueName("cardbuyer")}@example.test`;
  await logIn(page, "member", "member-demo-1");
  const checkout = await openDemoCheckout(page, context, "/product/vertex-hwid-spoofer", /30 Days/);
  await checkout.getByLabel("E-mail for your key").fill(email);
  await payDemoCheckout(checkout);
  const keyMail = await mailFromMailbox(page, email, /Your Vertex key/);
  const key = (await keyMail.textContent())!.match(/Vertex HWID Spoofer - 30 Days: (\S+)/)![1]!;
  await checkout.close();

  // Someone else registers the buyer's address.
  const intruder = await browser.newContext();
  const intruderPage = await intruder.newPage();
  const intruderName = uniqueName("intruder");
  await signUp(intruderPage, { username: intruderName, email, password: "intruder-pass-1" });

  // The buyer's mail provider scans the message: it opens the link, with no cookies of the buyer's.
  // (Even the buyer confirming it would need the password the intruder chose.)
  const scanner = await playwright.request.newContext();
  const scanned = await scanner.get(await linkFromMailbox(page, email, /Verify your/));
  expect(scanned.status()).toBe(200);
  expect(await scanned.text()).toContain("Confirm your e-mail address");
  await scanner.dispose();

  // Nothing was verified: the intruder still cannot sign in.
  await intruderPage.goto("/auth");
  await intruderPage.getByLabel("Email or Username").fill(intruderName);
  await intruderPage.getByLabel("Password").fill("intruder-pass-1");
  await intruderPage.getByRole("button", { name: "Sign In", exact: true }).click();
  await expect(intruderPage.getByText("Email Not Verified")).toBeVisible();

  // The owner signs up with their own address (the unconfirmed registration gives way), opens
  // their link, sees whose account they confirm, and confirms.
  const owner = await browser.newContext();
  const ownerPage = await owner.newPage();
  const ownerName = uniqueName("owner");
  await signUp(ownerPage, { username: ownerName, email, password: "owner-pass-1" });
  await ownerPage.goto(await linkFromMailbox(ownerPage, email, /Verify your/));
  await expect(ownerPage.getByText(ownerName)).toBeVisible();
  await expect(ownerPage.getByText("Did not sign up? Ignore the e-mail")).toBeVisible();
  await confirmFromMailbox(ownerPage, email, "owner-pass-1");

  await logIn(ownerPage, ownerName, "owner-pass-1");
  await ownerPage.goto("/dashboard/subscriptions");
  await expect(ownerPage.getByText(key)).toBeVisible();
  await intruder.close();
  await owner.close();
});

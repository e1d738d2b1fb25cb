import { expect, test } from "@playwright/test";
import * as OTPAuth from "otpauth";
import { creditFromCustomerPage, logIn, signUpAndLogIn, uniqueName } from "./helpers";

test("two members chat live and see each other typing", async ({ browser }) => {
  const alice = await (await browser.newContext()).newPage();
  const bob = await (await browser.newContext()).newPage();
  await logIn(alice, "admin", "admin-demo-1");
  await logIn(bob, "member", "member-demo-1");
  await alice.goto("/dashboard");
  await bob.goto("/dashboard");
  await expect(alice.getByText("Connected")).toBeVisible();
  await expect(bob.getByText("Connected")).toBeVisible();

  const aliceBox = alice.getByRole("combobox", { name: "Message" });
  await aliceBox.fill("hel");
  await expect(bob.getByText("admin is typing...")).toBeVisible();

  const text = `Hello Bob ${uniqueName("m")} <script>alert(1)</script>`;
  await aliceBox.fill(text);
  await alice.getByRole("button", { name: "Send message" }).click();
  const log = bob.getByRole("log", { name: "Chat messages" });
  await expect(log.getByText(text)).toBeVisible();
  await expect(bob.getByText("admin is typing...")).toBeHidden();
  // Bob cannot delete Alice's message; Alice can.
  await expect(log.getByRole("listitem").filter({ hasText: text }).getByRole("button", { name: "Delete" })).toHaveCount(0);

  const reply = `Hi Alice ${uniqueName("r")}`;
  await bob.getByRole("combobox", { name: "Message" }).fill(reply);
  await bob.getByRole("button", { name: "Send message" }).click();
  await expect(alice.getByRole("log", { name: "Chat messages" }).getByText(reply)).toBeVisible();

  await alice.getByRole("log").getByRole("listitem").filter({ hasText: text }).getByRole("button", { name: "Delete" }).click();
  await expect(log.getByText(text)).toHaveCount(0);
});

test("a member turns on two-factor authentication and signs in with a code", async ({ page }) => {
  const { username, password } = await signUpAndLogIn(page, "totp");
  await page.goto("/dashboard/2fa", { waitUntil: "networkidle" });
  await expect(page.getByText("Disabled", { exact: true })).toBeVisible();
  await page.getByRole("button", { name: "Enable" }).click();
  await expect(page.getByRole("img", { name: "QR code for your authenticator app" })).toBeVisible();
  const secret = (await page.getByTestId("totp-secret").textContent())!.replace(/\s/g, "");
  const totp = new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(secret), digits: 6, period: 30 });
  await page.getByLabel("6-digit code").fill(totp.generate());
  await page.getByRole("button", { name: "Turn on" }).click();
  await expect(page.getByRole("list", { name: "Recovery codes" }).getByRole("listitem")).toHaveCount(10);
  await page.getByRole("button", { name: "I have saved them" }).click();
  await expect(page.getByText("Enabled", { exact: true })).toBeVisible();

  await page.getByRole("button", { name: "Account menu" }).click();
  await page.getByRole("menuitem", { name: "Logout" }).click();
  await expect(page.getByText("Successfully signed out")).toBeVisible();

  await page.goto("/auth");
  await page.getByLabel("Email or Username").fill(username);
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Sign In", exact: true }).click();
  await expect(page).toHaveURL(/\/auth\/2fa$/);
  // The code from the next time step: the current one was spent turning 2FA on.
  await page.getByLabel("Code").fill(totp.generate({ timestamp: Date.now() + 30_000 }));
  await page.getByRole("button", { name: "Verify" }).click();
  await expect(page.getByText("Welcome back!")).toBeVisible();
  await page.goto("/dashboard/2fa");
  await expect(page.getByText("Enabled", { exact: true })).toBeVisible();
});

test("on a phone the dashboard's navigation is a menu named for the current page, with every page under whole labels", async ({ page }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await logIn(page, "admin", "admin-demo-1");
  await page.goto("/dashboard/2fa", { waitUntil: "networkidle" });
  const nav = page.getByRole("navigation", { name: "Dashboard" });
  const button = page.getByRole("button", { name: "Dashboard menu, Two-Factor Auth" });
  await expect(button).toHaveAttribute("aria-expanded", "false");
  await expect(nav).toBeHidden();

  await button.click();
  await expect(button).toHaveAttribute("aria-expanded", "true");
  // Twenty-three pages for an admin (eight of the member's, fifteen of staff in five groups, which
  // open one by one) and the chat's rooms, each on a line of its own, no label cut short.
  const groups = nav.locator("details");
  await expect(groups).toHaveCount(5);
  for (const group of await groups.all()) {
    if (!(await group.evaluate((details) => (details as HTMLDetailsElement).open))) await group.locator("summary").click();
  }
  const rooms = nav.getByRole("list", { name: "Chat" }).getByRole("link");
  await expect(rooms.first()).toBeVisible();
  const links = nav.getByRole("link");
  await expect(links).toHaveCount(27 + (await rooms.count()));
  for (const link of await links.all()) {
    expect(await link.evaluate((el) => el.scrollWidth <= el.clientWidth && el.getBoundingClientRect().width > 300)).toBe(true);
  }
  await expect(nav.getByRole("link", { name: "Two-Factor Auth" })).toHaveAttribute("aria-current", "page");

  // Escape closes it and gives the focus back to its button.
  await page.keyboard.press("Escape");
  await expect(nav).toBeHidden();
  await expect(button).toBeFocused();

  // Choosing a page closes it, and the button names the new page.
  await button.click();
  await nav.getByRole("link", { name: "Manage Codes" }).click();
  await expect(page).toHaveURL(/\/dashboard\/manage-codes$/);
  await expect(page.getByRole("button", { name: "Dashboard menu, Manage Codes" })).toHaveAttribute("aria-expanded", "false");
  await expect(nav).toBeHidden();
});

test("reseller keys are labelled cards on a phone and a table on a wide screen", async ({ browser }) => {
  const admin = await (await browser.newContext()).newPage();
  const reseller = await (await browser.newContext({ viewport: { width: 390, height: 844 } })).newPage();
  const { username } = await signUpAndLogIn(reseller, "res");
  await reseller.goto("/dashboard/resell");

  await logIn(admin, "admin", "admin-demo-1");
  await creditFromCustomerPage(admin, username, "500");

  await reseller.reload({ waitUntil: "networkidle" });
  await reseller.getByRole("button", { name: "Generate Keys" }).click();
  await expect(reseller.getByText("Generated 5 key(s) successfully")).toBeVisible();

  const cards = reseller.getByRole("list", { name: "Your keys" }).getByRole("listitem");
  await expect(cards).toHaveCount(5);
  for (const label of ["Key", "Type", "Status", "Licence", "PC", "Purchased", "Extend"])
    await expect(cards.first().getByRole("term").filter({ hasText: label })).toBeVisible();
  await expect(cards.first().getByRole("definition").filter({ hasText: "Monthly License" })).toBeVisible();
  await expect(cards.first().getByRole("definition").filter({ hasText: "Not activated" })).toBeVisible();
  await expect(reseller.getByRole("table")).toBeHidden();
  // Nothing in a card is wider than the screen.
  expect(await reseller.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);

  await reseller.setViewportSize({ width: 1280, height: 900 });
  await expect(reseller.getByRole("table")).toBeVisible();
  await expect(reseller.getByRole("columnheader")).toHaveText(["Key", "Type", "Status", "Licence", "PC", "Purchased", "Extend"]);
  await expect(reseller.getByRole("table").getByRole("row")).toHaveCount(6);
  await expect(reseller.getByRole("list", { name: "Your keys" })).toBeHidden();
});

test("the upload form's file picker is a labelled, keyboard-reachable button that shows the chosen file", async ({ page }) => {
  await logIn(page, "admin", "admin-demo-1");
  await page.goto("/dashboard/releases", { waitUntil: "networkidle" });
  const input = page.getByLabel("File", { exact: true });
  await expect(input).toHaveAttribute("type", "file");
  await expect(page.getByText("No file chosen")).toBeVisible();

  // Reached with the keyboard, the picker shows a focus ring on its button.
  await page.getByRole("heading", { name: "Upload a release" }).click();
  await page.keyboard.press("Tab");
  await expect(input).toBeFocused();
  const ring = await page.getByText("Choose file").evaluate((el) => getComputedStyle(el).outlineStyle);
  expect(ring).not.toBe("none");

  await input.setInputFiles({ name: "release-notes.txt", mimeType: "text/plain", buffer: Buffer.from("notes") });
  await expect(page.getByText("release-notes.txt")).toBeVisible();
  await expect(page.getByText("No file chosen")).toHaveCount(0);
});

import { expect, test } from "@playwright/test";
import * as OTPAuth from "otpauth";
import { linkFromMailbox, logIn, uniqueName } from "./helpers";

test("two members chat live and see each other typing", async ({ browser }) => {
  const alice = await (await browser.newContext()).newPage();
  const bob = await (await browser.newContext()).newPage();
  await logIn(alice, "admin", "admin-demo-1");
  await logIn(bob, "member", "member-demo-1");
  await alice.goto("/dashboard");
  await bob.goto("/dashboard");
  await expect(alice.getByText("Connected")).toBeVisible();
  await expect(bob.getByText("Connected")).toBeVisible();

  const aliceBox = alice.getByRole("textbox", { name: "Message" });
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
  await bob.getByRole("textbox", { name: "Message" }).fill(reply);
  await bob.getByRole("button", { name: "Send message" }).click();
  await expect(alice.getByRole("log", { name: "Chat messages" }).getByText(reply)).toBeVisible();

  await alice.getByRole("log").getByRole("listitem").filter({ hasText: text }).getByRole("button", { name: "Delete" }).click();
  await expect(log.getByText(text)).toHaveCount(0);
});

test("a member turns on two-factor authentication and signs in with a code", async ({ page }) => {
  const username = uniqueName("totp");
  const email = `${username}@example.test`;
  const password = "totp-password-1";
  await page.goto("/auth?mode=signup");
  await page.getByLabel("Username").fill(username);
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Create Account" }).click();
  await expect(page.getByText("Account Created!")).toBeVisible();
  await page.goto(await linkFromMailbox(page, email, /Verify your/));
  await logIn(page, username, password);

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
  await page.getByRole("button", { name: "Sign In" }).click();
  await expect(page).toHaveURL(/\/auth\/2fa$/);
  // The code from the next time step: the current one was spent turning 2FA on.
  await page.getByLabel("Code").fill(totp.generate({ timestamp: Date.now() + 30_000 }));
  await page.getByRole("button", { name: "Verify" }).click();
  await expect(page.getByText("Welcome back!")).toBeVisible();
  await page.goto("/dashboard/2fa");
  await expect(page.getByText("Enabled", { exact: true })).toBeVisible();
});

// The C++ SDK's example program (sdk/cpp/examples) against the shop served locally, as a buyer's
// PCs run it: built with the shop's public key compiled in, each "PC" a process with a machine id
// of its own (a private mount namespace over /etc/machine-id) and its own lease file. Bought through
// a signed order webhook, activated by the first check, refused on a second PC, moved by a Reset PC
// in the hub, carried by its lease when the shop cannot be reached, refused under a clock set back
// (Debian's faketime, not an override in the program), and stopped by its heartbeat after a refund.
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { hostname, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { expect, test } from "@playwright/test";
import { buyWeeklyByWebhook, refundByWebhook, reloadUntilVisible, signUpAndLogIn, stockAsAdmin, uniqueName } from "./helpers";

// The example's heartbeat, in seconds: the SDK's shortest, so a refund shows within moments.
const HEARTBEAT_SECONDS = "5";

const work = mkdtempSync(join(tmpdir(), "vertex-sdk-e2e-"));
const running: ChildProcess[] = [];

/** A PC: a folder for its lease file and a machine id of its own. */
function pc(name: string) {
  const folder = join(work, name);
  mkdirSync(folder);
  writeFileSync(join(folder, "machine-id"), `${randomBytes(16).toString("hex")}\n`);
  return folder;
}

/** The example program running on `folder`'s PC; its output lines as they come, and how it ended. */
function runExample(folder: string, shop: string, key: string, { clockSetBack = false } = {}) {
  const program = [join(work, "build", "check_licence"), shop, key, HEARTBEAT_SECONDS];
  const command = clockSetBack ? ["faketime", "-f", "-3d", ...program] : program;
  const child = spawn(
    "unshare",
    ["--mount", "sh", "-c", 'mount --bind "$0" /etc/machine-id && exec "$@"', join(folder, "machine-id"), ...command],
    { cwd: folder },
  );
  running.push(child);
  const lines: string[] = [];
  child.stdout.on("data", (chunk: Buffer) => lines.push(...chunk.toString().split("\n").filter(Boolean)));
  child.stderr.on("data", (chunk: Buffer) => lines.push(...chunk.toString().split("\n").filter(Boolean)));
  const exited = new Promise<number | null>((done) => child.on("exit", (code) => done(code)));
  return {
    lines,
    exited,
    /** Waits for a line matching `pattern`. */
    said: (pattern: RegExp) =>
      expect.poll(() => lines.find((l) => pattern.test(l)) ?? lines.join(" | "), { timeout: 30_000 }).toMatch(pattern),
    stop: () => child.kill("SIGTERM"),
  };
}

/** A local port nothing listens on: the shop "stopped". */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((listening) => server.listen(0, "127.0.0.1", listening));
  const { port } = server.address() as { port: number };
  await new Promise((closed) => server.close(closed));
  return port;
}

test.beforeAll(async ({ baseURL }) => {
  test.setTimeout(300_000);
  // The shop's public key goes into the program at build time, as a shop builds its program.
  const { publicKey } = (await (await fetch(new URL("/api/v1/licences/signing-key", baseURL))).json()) as { publicKey: string };
  const build = join(work, "build");
  execFileSync("cmake", ["-S", resolve("sdk/cpp"), "-B", build, "-DCMAKE_BUILD_TYPE=Release", `-DVERTEX_SHOP_PUBLIC_KEY=${publicKey}`], {
    stdio: "pipe",
  });
  execFileSync("cmake", ["--build", build, "--target", "check_licence", "-j2"], { stdio: "pipe" });
});

test.afterAll(() => {
  for (const child of running) child.kill("SIGKILL");
  rmSync(work, { recursive: true, force: true });
});

test("the C++ example activates a bought key, is refused on a second PC until a reset, works on its lease with the shop at a closed port, refuses a clock set back, and stops after a refund", async ({
  page,
  browser,
  baseURL,
}) => {
  test.setTimeout(240_000);
  const shop = baseURL!;
  // Stock a weekly code for the order (earlier runs may have sold the demo stock).
  await stockAsAdmin(browser, "Vertex Rust - 1 Week", [`SDK-E2E-${uniqueName("k")}`]);

  // Bought by a signed order webhook, as Shopify sends it; the key shows on the buyer's hub.
  const member = await signUpAndLogIn(page, "sdk");
  const order = await buyWeeklyByWebhook(shop, member.email);
  const card = page.getByRole("article", { name: "Vertex Rust — 1 Week" });
  await reloadUntilVisible(page, "/dashboard/subscriptions", card);
  const key = (await card.getByRole("button", { name: "Copy product key" }).locator("xpath=..").textContent())?.trim();
  expect(key).toBeTruthy();

  // PC A's first check activates the key; the hub shows the PC under the computer's name.
  const pcA = pc("pc-a");
  const first = runExample(pcA, shop, key!);
  await first.said(/^valid VALID: Licence valid\.$/);
  await page.reload({ waitUntil: "networkidle" });
  await expect(card.getByText(/Active until/)).toBeVisible();
  await expect(card.getByText(hostname().slice(0, 64), { exact: true })).toBeVisible();

  // PC B is refused, and the program says why.
  const pcB = pc("pc-b");
  const refused = runExample(pcB, shop, key!);
  expect(await refused.exited).toBe(1);
  expect(refused.lines[0]).toMatch(/^denied HWID_MISMATCH: This key is bound to another PC/);

  // The member closes the program on PC A and resets the PC in the hub; PC B then activates.
  first.stop();
  await first.exited;
  await card.getByRole("button", { name: /Reset PC/ }).click();
  await page.getByRole("dialog", { name: "Reset this key's PC?" }).getByRole("button", { name: "Reset PC" }).click();
  await expect(page.getByRole("status").filter({ hasText: "PC reset" })).toBeVisible();
  const moved = runExample(pcB, shop, key!);
  await moved.said(/^valid VALID: Licence valid\.$/);

  // With the shop unreachable, PC B's signed lease carries it.
  const unreachable = `http://127.0.0.1:${await closedPort()}`;
  const offline = runExample(pcB, unreachable, key!);
  await offline.said(/^valid VALID: Licence valid \(offline lease\)\.$/);
  offline.stop();

  // The same, with the clock set back three days: refused as tampering, not believed.
  const rolledBack = runExample(pcB, unreachable, key!, { clockSetBack: true });
  expect(await rolledBack.exited).toBe(1);
  expect(rolledBack.lines[0]).toBe("tampered rollback: The computer's clock was set back.");

  // A refund reaches the program still running on PC B through its heartbeat, and it stops.
  await refundByWebhook(shop, order);
  await moved.said(/^denied REVOKED: This licence was revoked/);
  expect(await moved.exited).toBe(1);
  // The refusal ended the lease: with the shop unreachable again, nothing brings the licence back.
  const afterRefund = runExample(pcB, unreachable, key!);
  expect(await afterRefund.exited).toBe(1);
  expect(afterRefund.lines[0]).toMatch(/^offline unreachable: /);
});

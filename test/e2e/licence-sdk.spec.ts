// The C++ SDK's example program (sdk/cpp/examples) against the shop served locally, as a buyer's
// PCs run it, on Linux and on Windows: the same steps and the same assertions for both. Built with
// the shop's public key compiled in; on Linux each "PC" is a process with a machine id of its own (a
// private mount namespace over /etc/machine-id), on Windows a Wine prefix of its own (its own
// MachineGuid), so the Windows machine id and the WinHTTP transport are what run there. Each PC has
// its own lease file. Bought through a signed order webhook, activated by the first check, valid
// again at the next start, refused on a second PC, moved by a Reset PC in the hub, carried by its
// lease when the shop cannot be reached, refused with a lease file altered by one byte or under a
// clock set back (Debian's faketime, not an override in the program), and stopped by its heartbeat
// after a refund.
//
// On Linux the TypeScript SDK's README example runs too, from the package installed out of its
// tarball (SDK_TS_EXAMPLE, made by sdk/typescript/tools/install-example.sh) on Node 20: on the same
// PC it sends the C++ SDK's hardware id, shares its lease file, and its heartbeat stops it too.
//
// The Windows run needs MinGW-w64 (posix threads), Wine and libsodium cross-built for Windows
// (sdk/cpp/tools/libsodium-mingw.sh); without them it is skipped, unless SDK_WINDOWS=1 (CI) asks for it.
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { randomBytes, randomUUID } from "node:crypto";
import { copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { hostname, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { expect, test } from "@playwright/test";
import { buyWeeklyByWebhook, refundByWebhook, reloadUntilVisible, signUpAndLogIn, stockAsAdmin, uniqueName } from "./helpers";

// The example's heartbeat, in seconds: the SDK's shortest, so a refund shows within moments.
const HEARTBEAT_SECONDS = "5";

const work = mkdtempSync(join(tmpdir(), "vertex-sdk-e2e-"));
// Debian's Node 20, the oldest the TypeScript SDK supports, whatever runs the tests.
const NODE_20 = "/usr/bin/node";
let typescriptExample: string | undefined;
const running: ChildProcess[] = [];

const has = (command: string) => {
  try {
    execFileSync("sh", ["-c", `command -v ${command}`], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
};

/** How one system builds the example and runs it as one PC. */
interface Platform {
  name: string;
  /** Why this run cannot happen here; undefined when it can. */
  missing(): string | undefined;
  /** Builds the example into `build` with the shop's `publicKey`. */
  build(publicKey: string, build: string): void;
  /** A new PC in `folder`, with a machine identity of its own. */
  makePc(folder: string): void;
  /** The command that runs the built example on `folder`'s PC. */
  command(build: string, folder: string, args: string[]): { command: string[]; env: NodeJS.ProcessEnv };
  /** Ends every program still running on `folder`'s PC, beyond the process started. */
  closePc(folder: string): void;
}

const linux: Platform = {
  name: "Linux",
  missing: () => undefined,
  build(publicKey, build) {
    execFileSync("cmake", ["-S", resolve("sdk/cpp"), "-B", build, "-DCMAKE_BUILD_TYPE=Release", `-DVERTEX_SHOP_PUBLIC_KEY=${publicKey}`], {
      stdio: "pipe",
    });
    execFileSync("cmake", ["--build", build, "--target", "check_licence", "-j2"], { stdio: "pipe" });
  },
  makePc(folder) {
    writeFileSync(join(folder, "machine-id"), `${randomBytes(16).toString("hex")}\n`);
  },
  command: (build, _folder, args) => ({ command: [join(build, "check_licence"), ...args], env: process.env }),
  closePc: () => undefined,
};

// Wine without its desktop, its Mono and Gecko installers, or its chatter.
const WINE_ENV = { WINEDEBUG: "-all", WINEDLLOVERRIDES: "mscoree,mshtml=", DISPLAY: "" };

const windows: Platform = {
  name: "Windows",
  missing() {
    const tools = ["x86_64-w64-mingw32-g++-posix", "wine", "wineboot", "autoreconf"].filter((tool) => !has(tool));
    return tools.length ? `needs ${tools.join(", ")}` : undefined;
  },
  build(publicKey, build) {
    // libsodium for Windows, built once from Debian's source package and kept in a cache.
    const sodium =
      process.env.VERTEX_SODIUM_MINGW ??
      execFileSync(resolve("sdk/cpp/tools/libsodium-mingw.sh"), { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }).trim();
    execFileSync(
      "cmake",
      [
        "-S",
        resolve("sdk/cpp"),
        "-B",
        build,
        "--toolchain",
        resolve("sdk/cpp/cmake/mingw-w64-x86_64.cmake"),
        "-DCMAKE_BUILD_TYPE=Release",
        `-DCMAKE_PREFIX_PATH=${sodium}`,
        `-DVERTEX_SHOP_PUBLIC_KEY=${publicKey}`,
      ],
      { stdio: "pipe" },
    );
    execFileSync("cmake", ["--build", build, "--target", "check_licence", "-j2"], { stdio: "pipe" });
    // One Wine prefix made once; each PC is a copy with a MachineGuid of its own.
    const template = join(work, "wine-template");
    if (!existsSync(template)) {
      execFileSync("wineboot", ["--init"], { env: { ...process.env, ...WINE_ENV, WINEPREFIX: template }, stdio: "pipe" });
      execFileSync("wineserver", ["--wait"], { env: { ...process.env, ...WINE_ENV, WINEPREFIX: template }, stdio: "pipe" });
    }
  },
  makePc(folder) {
    const prefix = join(folder, "wine");
    cpSync(join(work, "wine-template"), prefix, { recursive: true, verbatimSymlinks: true });
    const registry = join(prefix, "system.reg");
    const guid = readFileSync(registry, "utf8").replace(/"MachineGuid"="[^"]*"/, `"MachineGuid"="${randomUUID()}"`);
    writeFileSync(registry, guid);
    // Wine makes the firmware's UUID of its SMBIOS table from the system's (or from /etc/machine-id
    // when there is none): each PC gets one of its own.
    writeFileSync(join(folder, "machine-id"), `${randomBytes(16).toString("hex")}\n`);
  },
  command: (build, folder, args) => ({
    command: ["wine", join(build, "check_licence.exe"), ...args],
    env: { ...process.env, ...WINE_ENV, WINEPREFIX: join(folder, "wine") },
  }),
  // Wine may finish a program after its process was signalled: its wineserver ends it for sure.
  closePc(folder) {
    try {
      execFileSync("wineserver", ["--kill"], { env: { ...process.env, ...WINE_ENV, WINEPREFIX: join(folder, "wine") }, stdio: "ignore" });
    } catch {
      // No wineserver left for that prefix: nothing runs there.
    }
  },
};

/** A local port nothing listens on: the shop "stopped". */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((listening) => server.listen(0, "127.0.0.1", listening));
  const { port } = server.address() as { port: number };
  await new Promise((closed) => server.close(closed));
  return port;
}

test.afterAll(() => {
  for (const child of running) child.kill("SIGKILL");
  // A Wine prefix's wineserver writes its registry as it exits, a moment after its last program:
  // removing the folder meanwhile meets files that were not there a moment before (ENOTEMPTY).
  rmSync(work, { recursive: true, force: true, maxRetries: 10, retryDelay: 300 });
});

for (const platform of [linux, windows]) {
  test.describe(`the C++ example on ${platform.name}`, () => {
    const build = join(work, `build-${platform.name.toLowerCase()}`);
    const missing = platform.missing();
    test.skip(missing !== undefined && process.env.SDK_WINDOWS !== "1", `${platform.name} ${missing}`);
    if (platform === linux && process.env.CI && !process.env.SDK_TS_EXAMPLE)
      throw new Error("CI runs the TypeScript SDK's example: set SDK_TS_EXAMPLE");

    /** A PC: a folder for its lease file and a machine identity of its own. */
    function pc(name: string) {
      const folder = join(work, `${platform.name}-${name}`);
      mkdirSync(folder);
      platform.makePc(folder);
      return folder;
    }

    /** The example program (the TypeScript one with `typescript`) running on `folder`'s PC; its output lines as they come, and how it ended. */
    function runExample(folder: string, shop: string, key: string, { clockSetBack = false, typescript = false } = {}) {
      const { command: program, env } = typescript
        ? { command: [NODE_20, typescriptExample!, shop, key, HEARTBEAT_SECONDS], env: process.env }
        : platform.command(build, folder, [shop, key, HEARTBEAT_SECONDS]);
      const command = clockSetBack ? ["faketime", "-f", "-3d", ...program] : program;
      // The machine's ids replaced by the PC's own, in a private mount namespace: the firmware's
      // UUID where the system has one, and the installation's id (D-Bus's copy is where Wine makes
      // its firmware UUID from when the system has none).
      const binds = [
        'mount --bind "$0" /etc/machine-id',
        '[ ! -f /var/lib/dbus/machine-id ] || mount --bind "$0" /var/lib/dbus/machine-id',
        '[ ! -e /sys/class/dmi/id/product_uuid ] || mount --bind "$0" /sys/class/dmi/id/product_uuid',
        'exec "$@"',
      ].join(" && ");
      const child = spawn("unshare", ["--mount", "sh", "-c", binds, join(folder, "machine-id"), ...command], { cwd: folder, env });
      running.push(child);
      const lines: string[] = [];
      child.stdout.on("data", (chunk: Buffer) => lines.push(...chunk.toString().split(/\r?\n/).filter(Boolean)));
      child.stderr.on("data", (chunk: Buffer) => lines.push(...chunk.toString().split(/\r?\n/).filter(Boolean)));
      const exited = new Promise<number | null>((done) => child.on("exit", (code) => done(code)));
      return {
        lines,
        exited,
        /** Waits for a line matching `pattern`. */
        said: (pattern: RegExp) =>
          expect.poll(() => lines.find((l) => pattern.test(l)) ?? lines.join(" | "), { timeout: 60_000 }).toMatch(pattern),
        stop: () => child.kill("SIGTERM"),
      };
    }

    test.beforeAll(async ({ baseURL }) => {
      if (missing !== undefined && process.env.SDK_WINDOWS !== "1") return;
      test.setTimeout(600_000);
      // The shop's public key goes into the program at build time, as a shop builds its program.
      const { publicKey } = (await (await fetch(new URL("/api/v1/licences/signing-key", baseURL))).json()) as { publicKey: string };
      platform.build(publicKey, build);
      if (platform === linux && process.env.SDK_TS_EXAMPLE) {
        // The README's example with the shop's key put in, beside it in its project.
        typescriptExample = process.env.SDK_TS_EXAMPLE.replace(/\.mjs$/, ".local.mjs");
        writeFileSync(
          typescriptExample,
          readFileSync(process.env.SDK_TS_EXAMPLE, "utf8").replace('"<publicKey>"', JSON.stringify(publicKey)),
        );
      }
    });

    test("activates a bought key, is valid at the next start, is refused on a second PC until a reset, works on its lease with the shop at a closed port, refuses an altered lease and a clock set back, and stops after a refund", async ({
      page,
      browser,
      baseURL,
    }) => {
      test.setTimeout(300_000);
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
      if (platform === linux) await expect(card.getByText(hostname().slice(0, 64), { exact: true })).toBeVisible();
      first.stop();
      await first.exited;

      // The next start on PC A is valid again.
      const again = runExample(pcA, shop, key!);
      await again.said(/^valid VALID: Licence valid\.$/);

      // PC B is refused, and the program says why.
      const pcB = pc("pc-b");
      const refused = runExample(pcB, shop, key!);
      expect(await refused.exited).toBe(1);
      expect(refused.lines[0]).toMatch(/^denied HWID_MISMATCH: This key is bound to another PC/);

      // The member closes the program on PC A and resets the PC in the hub; PC B then activates.
      again.stop();
      await again.exited;
      platform.closePc(pcA);
      await card.getByRole("button", { name: /Reset PC/ }).click();
      await page.getByRole("dialog", { name: "Reset this key's PC?" }).getByRole("button", { name: "Reset PC" }).click();
      await expect(page.getByRole("status").filter({ hasText: "PC reset" })).toBeVisible();
      const moved = runExample(pcB, shop, key!);
      await moved.said(/^valid VALID: Licence valid\.$/);

      // The TypeScript SDK on the same PC sends the same hardware id (another would be refused), and
      // keeps the lease file the C++ SDK reads offline below.
      // Only beside the Linux build: the Windows PCs' ids are Wine's, which Node on the host cannot read.
      const typescript = platform === linux && typescriptExample ? runExample(pcB, shop, key!, { typescript: true }) : undefined;
      await typescript?.said(/^valid VALID: Licence valid\.$/);

      // With the shop unreachable, PC B's signed lease carries it.
      const unreachable = `http://127.0.0.1:${await closedPort()}`;
      const offline = runExample(pcB, unreachable, key!);
      await offline.said(/^valid VALID: Licence valid \(offline lease\)\.$/);
      offline.stop();
      await offline.exited;

      // One byte of the lease file changed: not believed.
      const lease = join(pcB, "licence.lease");
      const kept = join(pcB, "licence.lease.kept");
      copyFileSync(lease, kept);
      const bytes = readFileSync(lease);
      bytes.writeUInt8(bytes.readUInt8(bytes.length - 1) ^ 1, bytes.length - 1);
      writeFileSync(lease, bytes);
      const altered = runExample(pcB, unreachable, key!);
      expect(await altered.exited).toBe(1);
      expect(altered.lines[0]).toBe("tampered signature: The stored offline lease is not genuine.");
      copyFileSync(kept, lease);

      // The same, with the clock set back three days: refused as tampering, not believed.
      const rolledBack = runExample(pcB, unreachable, key!, { clockSetBack: true });
      expect(await rolledBack.exited).toBe(1);
      expect(rolledBack.lines[0]).toBe("tampered rollback: The computer's clock was set back.");

      // A refund reaches the program still running on PC B through its heartbeat, and it stops.
      await refundByWebhook(shop, order);
      await moved.said(/^denied REVOKED: This licence was revoked/);
      expect(await moved.exited).toBe(1);
      await typescript?.said(/^denied REVOKED: This licence was revoked/);
      if (typescript) expect(await typescript.exited).toBe(1);
      // The refusal ended the lease: with the shop unreachable again, nothing brings the licence back.
      const afterRefund = runExample(pcB, unreachable, key!);
      expect(await afterRefund.exited).toBe(1);
      expect(afterRefund.lines[0]).toMatch(/^denied REVOKED: /);
    });
  });
}

// The quick start's own step, run as `npm run dev` runs it, in a scratch folder: .dev.vars gets
// every secret the example documents, and a generated secret whose line is there but empty is
// generated all the same.
import { expect, test } from "@playwright/test";
import { spawnSync } from "node:child_process";
import { createPrivateKey } from "node:crypto";
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

const SCRIPT = resolve("scripts/prepare-local.ts");

function prepare(devVars: string | null) {
  const dir = mkdtempSync(join(tmpdir(), "prepare-local-"));
  copyFileSync("local-secrets.example", join(dir, "local-secrets.example"));
  if (devVars !== null) writeFileSync(join(dir, ".dev.vars"), devVars);
  const run = spawnSync(process.execPath, [SCRIPT, "--secrets-only"], { cwd: dir, encoding: "utf8" });
  const written = readFileSync(join(dir, ".dev.vars"), "utf8");
  rmSync(dir, { recursive: true, force: true });
  return { run, written };
}

const valueOf = (text: string, name: string) => new RegExp(`^${name}="?([^"\\n]*)"?$`, "m").exec(text)?.[1];

/** True when `value` is what the licence API needs: a base64 PKCS#8 Ed25519 private key. */
const isSigningKey = (value: string | undefined) =>
  value !== undefined &&
  value !== "" &&
  createPrivateKey({ key: Buffer.from(value, "base64"), format: "der", type: "pkcs8" }).asymmetricKeyType === "ed25519";

test.describe("local secrets", () => {
  test("a fresh checkout gets every secret, with a signing key of its own", () => {
    const { run, written } = prepare(null);
    expect(run.status).toBe(0);
    for (const line of readFileSync("local-secrets.example", "utf8").split("\n")) {
      const name = /^([A-Z0-9_]+)=/.exec(line)?.[1];
      if (name) expect(written).toMatch(new RegExp(`^${name}=`, "m"));
    }
    expect(isSigningKey(valueOf(written, "LICENCE_SIGNING_KEY"))).toBe(true);
  });

  test("an empty generated secret copied by hand from the example is filled; other lines stay as they were", () => {
    const copied = readFileSync("local-secrets.example", "utf8").replace(/^MAIL_API_KEY=.*$/m, 'MAIL_API_KEY="kept-as-is"');
    expect(valueOf(copied, "LICENCE_SIGNING_KEY")).toBe("");
    const { run, written } = prepare(copied);
    expect(run.status).toBe(0);
    expect(run.stdout).toContain("filled the empty LICENCE_SIGNING_KEY");
    expect(isSigningKey(valueOf(written, "LICENCE_SIGNING_KEY"))).toBe(true);
    expect(valueOf(written, "MAIL_API_KEY")).toBe("kept-as-is");
    expect(written.match(/^LICENCE_SIGNING_KEY=/gm)).toHaveLength(1);
  });

  test("a key already set is kept", () => {
    const { written: first } = prepare(null);
    const { run, written } = prepare(first);
    expect(run.stdout).toBe("");
    expect(valueOf(written, "LICENCE_SIGNING_KEY")).toBe(valueOf(first, "LICENCE_SIGNING_KEY"));
  });
});

// The live shop's health report (decision 098), as the server makes it and the Health page and the
// doctor read it: each part of the shop checked, its findings saying what is wrong and what to do.

export interface Finding {
  problem: string;
  /** What to do about it. */
  fix: string;
}

/** "off": an optional part the shop does not use (no Discord bot, no Litecoin wallet). */
export type CheckState = "ok" | "problem" | "off";

export type CheckId =
  "signing-key" | "webhooks" | "mail" | "wallets" | "chain" | "passkeys" | "discord" | "jobs" | "migrations" | "settings";

export interface HealthCheck {
  id: CheckId;
  label: string;
  state: CheckState;
  /** What was found that is fine: the public key, a wallet's first address, when the cron last ran. */
  facts: string[];
  findings: Finding[];
}

export interface HealthReport {
  checkedAt: number;
  /** The address the shop was asked at: what passkeys must be bound to. */
  origin: string;
  /** The licence signing key's public half, base64 (null when the key is missing or broken). */
  publicKey: string | null;
  checks: HealthCheck[];
}

/** How many findings the report holds. */
export const findingsOf = (report: HealthReport) => report.checks.reduce((sum, check) => sum + check.findings.length, 0);

// What the shop's crypto payments run on, read from the Worker's settings: a wallet per coin, the
// chain each is watched on, the exchange rate, and the invoice rules. A coin whose wallet is
// missing or wrong is simply not offered; the problem is shown to admins (decision 032).
import { CRYPTO_COINS, type CryptoCoin } from "~/lib/crypto-orders";
import type { Db } from "../platform/db/client.server";
import { type Chain, esploraChain } from "./chain.server";
import { DEFAULT_RATE_URL, DEMO_RATES, type Rates, spotRates } from "./rates.server";
import { simulatedChain } from "./simulated-chain.server";
import { type AccountKey, demoWalletProblem, isDemoWallet, parseAccountKey } from "./wallet.server";

/** Production builds never use a demo wallet, a demo rate or the simulated chain. */
const PRODUCTION = import.meta.env.PROD;

/** Public Esplora instances a production shop uses when it names none. */
const PUBLIC_EXPLORERS: Record<CryptoCoin, string> = { BTC: "https://mempool.space/api", LTC: "https://litecoinspace.org/api" };

export type CryptoEnv = Pick<
  Env,
  | "CRYPTO_BTC_XPUB"
  | "CRYPTO_LTC_XPUB"
  | "CRYPTO_BTC_EXPLORER_URL"
  | "CRYPTO_LTC_EXPLORER_URL"
  | "CRYPTO_RATE_URL"
  | "CRYPTO_INVOICE_MINUTES"
  | "CRYPTO_CONFIRMATIONS"
  | "CRYPTO_UNDERPAYMENT_TOLERANCE_PERCENT"
>;

export interface InvoiceRules {
  /** How long a quote holds. */
  invoiceMs: number;
  /** Confirmations that settle a payment. */
  confirmations: number;
  /** How much short of the amount still counts as paid, in percent. */
  tolerancePercent: number;
}

export interface CryptoSetup extends InvoiceRules {
  wallets: Partial<Record<CryptoCoin, AccountKey>>;
  /** The coins the shop takes: those with a wallet. None: no crypto checkout. */
  coins: CryptoCoin[];
  /** What keeps crypto payments (or one coin) off, in the shop owner's words. */
  problems: string[];
  chain(coin: CryptoCoin): Chain;
  rates: Rates;
  /** Coins watched on the simulated chain (development and tests, no explorer configured). */
  simulatedCoins: CryptoCoin[];
}

function whole(value: string | undefined, name: string, fallback: number, min: number, max: number, problems: string[]): number {
  const n = Number(value ?? "");
  if (value !== undefined && value !== "" && Number.isInteger(n) && n >= min && n <= max) return n;
  if (value) problems.push(`${name} must be a whole number from ${min} to ${max}; using ${fallback}`);
  return fallback;
}

// Reading an extended key decompresses a curve point (a square root modulo the curve's prime): done
// once per key and isolate, not on every product page that asks which coins the shop takes.
const accountKeys = new Map<string, ReturnType<typeof parseAccountKey>>();

function accountKey(coin: CryptoCoin, configured: string) {
  const known = accountKeys.get(`${coin}:${configured}`);
  if (known) return known;
  const parsed = parseAccountKey(coin, configured);
  accountKeys.set(`${coin}:${configured}`, parsed);
  return parsed;
}

export function cryptoSetup(env: CryptoEnv, db: Db): CryptoSetup {
  const problems: string[] = [];
  const wallets: Partial<Record<CryptoCoin, AccountKey>> = {};
  for (const coin of CRYPTO_COINS) {
    const configured = (coin === "BTC" ? env.CRYPTO_BTC_XPUB : env.CRYPTO_LTC_XPUB)?.trim() ?? "";
    if (!configured) {
      problems.push(`${coin} payments are off: set CRYPTO_${coin}_XPUB to your wallet's extended public key`);
      continue;
    }
    const parsed = accountKey(coin, configured);
    if (!parsed.ok) {
      problems.push(`${coin} payments are off: ${parsed.problem.message}`);
      continue;
    }
    if (PRODUCTION && isDemoWallet(parsed.value)) {
      problems.push(`${coin} payments are off: ${demoWalletProblem(coin)}`);
      continue;
    }
    // One account for both coins would watch Litecoin payments where the Litecoin wallet never looks.
    if (coin === "LTC" && wallets.BTC?.id === parsed.value.id) {
      problems.push("LTC payments are off: CRYPTO_LTC_XPUB is the same key as CRYPTO_BTC_XPUB; export your Litecoin wallet's own key");
      continue;
    }
    wallets[coin] = parsed.value;
  }
  const explorer = (coin: CryptoCoin) =>
    (coin === "BTC" ? env.CRYPTO_BTC_EXPLORER_URL : env.CRYPTO_LTC_EXPLORER_URL)?.trim() || (PRODUCTION ? PUBLIC_EXPLORERS[coin] : "");
  const rateUrl = env.CRYPTO_RATE_URL?.trim() || (PRODUCTION ? DEFAULT_RATE_URL : "");
  return {
    wallets,
    coins: CRYPTO_COINS.filter((coin) => wallets[coin]),
    problems,
    chain: (coin) => {
      const url = explorer(coin);
      return url ? esploraChain(url) : simulatedChain(db, coin);
    },
    simulatedCoins: CRYPTO_COINS.filter((coin) => !explorer(coin)),
    rates: rateUrl ? spotRates(rateUrl) : DEMO_RATES,
    invoiceMs: whole(env.CRYPTO_INVOICE_MINUTES, "CRYPTO_INVOICE_MINUTES", 30, 5, 1440, problems) * 60_000,
    confirmations: whole(env.CRYPTO_CONFIRMATIONS, "CRYPTO_CONFIRMATIONS", 1, 1, 100, problems),
    tolerancePercent: whole(env.CRYPTO_UNDERPAYMENT_TOLERANCE_PERCENT, "CRYPTO_UNDERPAYMENT_TOLERANCE_PERCENT", 0, 0, 50, problems),
  };
}

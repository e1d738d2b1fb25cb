// What one coin is worth in US cents, for pricing a crypto order: Coinbase's public spot price,
// or fixed demo rates for a shop that has not switched real payments on.
import * as v from "valibot";
import type { CryptoCoin } from "~/lib/crypto-orders";

export interface Rates {
  /** Integer US cents for one whole coin. */
  usdCentsPerCoin(coin: CryptoCoin): Promise<number>;
  readonly demo: boolean;
}

/** The rate could not be had or made no sense; an order cannot be priced in coins right now. */
export class RateUnavailable extends Error {
  constructor(message: string) {
    super(message);
    this.name = "RateUnavailable";
  }
}

/** Coinbase's spot price, public and without a key; `{coin}` becomes BTC or LTC. */
export const DEFAULT_RATE_URL = "https://api.coinbase.com/v2/prices/{coin}-USD/spot";

const TIMEOUT_MS = 8_000;

/** Not market prices: round figures that make demo orders easy to check by hand. */
export const DEMO_RATES: Rates = {
  demo: true,
  usdCentsPerCoin: async (coin) => ({ BTC: 100_000_00, LTC: 100_00 })[coin],
};

const spotSchema = (coin: CryptoCoin) =>
  v.object({
    data: v.object({
      amount: v.pipe(v.string(), v.regex(/^\d+(\.\d+)?$/, "amount is not a decimal")),
      base: v.literal(coin, "the price is for another coin"),
      currency: v.literal("USD", "the price is not in US dollars"),
    }),
  });

/** The spot price at `urlTemplate` (Coinbase's answer shape), in whole US cents, half a cent rounded up. */
export function spotRates(urlTemplate: string, fetcher: typeof fetch = fetch): Rates {
  return {
    demo: false,
    async usdCentsPerCoin(coin) {
      const fail = (reason: string) => new RateUnavailable(`USD spot price of ${coin}: ${reason}`);
      let body: unknown;
      try {
        const response = await fetcher(urlTemplate.replaceAll("{coin}", coin), { signal: AbortSignal.timeout(TIMEOUT_MS) });
        if (!response.ok) {
          await response.body?.cancel();
          throw fail(`HTTP ${response.status}`);
        }
        body = await response.json();
      } catch (error) {
        if (error instanceof RateUnavailable) throw error;
        if (error instanceof Error && error.name === "TimeoutError") throw fail(`no answer within ${TIMEOUT_MS / 1000} s`);
        throw fail(error instanceof SyntaxError ? "the answer is not JSON" : error instanceof Error ? error.message : String(error));
      }
      const parsed = v.safeParse(spotSchema(coin), body);
      if (!parsed.success) throw fail(parsed.issues[0].message);
      const cents = decimalToCents(parsed.output.data.amount);
      if (cents <= 0n || cents > BigInt(Number.MAX_SAFE_INTEGER)) throw fail(`${parsed.output.data.amount} is not a usable price`);
      return Number(cents);
    },
  };
}

/** "67123.456" -> 6712346n: read digit by digit, since 1.005 * 100 in floating point is 100.49999. */
function decimalToCents(amount: string): bigint {
  const [whole = "", fraction = ""] = amount.split(".");
  const digits = fraction.padEnd(3, "0");
  return BigInt(whole) * 100n + BigInt(digits.slice(0, 2)) + (digits[2]! >= "5" ? 1n : 0n);
}

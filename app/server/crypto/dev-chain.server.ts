// What /dev/chain shows and acts on: the open orders of coins on the simulated chain, and each
// such coin's height. Development and tests only (decision 032).
import { and, desc, eq, inArray, isNull } from "drizzle-orm";
import * as v from "valibot";
import { CRYPTO_COINS, type CryptoCoin } from "~/lib/crypto-orders";
import { fail, ok, type Result } from "~/lib/result";
import type { Db } from "../platform/db/client.server";
import { cryptoOrders } from "../platform/db/schema.server";
import { type CryptoOrder, OPEN_STATES } from "./crypto-orders.server";
import { cryptoSetup, type CryptoEnv } from "./crypto-setup.server";

export const SIMULATED_CHAIN_ENABLED = !import.meta.env.PROD;

const orderNumber = v.pipe(v.optional(v.string(), ""), v.trim(), v.nonEmpty("Choose an order"), v.maxLength(64));

export const devChainSchema = v.variant(
  "intent",
  [
    v.object({ intent: v.picklist(["pay-full", "pay-part"]), orderNumber }),
    v.object({ intent: v.literal("mine"), coin: v.picklist(CRYPTO_COINS, "Choose BTC or LTC") }),
  ],
  "Unknown request",
);

export async function simulatedChainView(db: Db, env: CryptoEnv) {
  const setup = cryptoSetup(env, db);
  const coins = setup.simulatedCoins;
  const orders =
    coins.length === 0
      ? []
      : await db
          .select()
          .from(cryptoOrders)
          .where(and(inArray(cryptoOrders.status, OPEN_STATES), isNull(cryptoOrders.paidAt), inArray(cryptoOrders.cryptoType, coins)))
          .orderBy(desc(cryptoOrders.createdAt))
          .limit(100);
  const paid =
    orders.length === 0 ? [] : await Promise.all(orders.map((order) => setup.chain(order.cryptoType).paymentsTo(order.walletAddress)));
  const tips = Object.fromEntries(
    await Promise.all(CRYPTO_COINS.map(async (coin) => [coin, coins.includes(coin) ? await setup.chain(coin).tipHeight() : null] as const)),
  ) as Record<CryptoCoin, number | null>;
  return {
    // What the simulated chain holds for each order's address, beside what the order last saw.
    orders: orders.map((order, i) => ({
      ...order,
      onChainUnits: (paid[i] ?? []).reduce((sum, p) => sum + p.units, 0),
      unconfirmed: (paid[i] ?? []).some((p) => p.height === null),
    })),
    tips,
  };
}

/** An open order whose coin is on the simulated chain (a real chain cannot be paid from here). */
export async function orderOnSimulatedChain(db: Db, env: CryptoEnv, number: string): Promise<Result<CryptoOrder>> {
  const order = await db.select().from(cryptoOrders).where(eq(cryptoOrders.orderNumber, number)).get();
  if (!order || order.addressIndex === null) return fail("not-found", "No such crypto order");
  if (!cryptoSetup(env, db).simulatedCoins.includes(order.cryptoType))
    return fail("conflict", `${order.cryptoType} is watched on a real chain here`);
  return ok(order);
}

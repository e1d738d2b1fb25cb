// The simulated chain: a stand-in for a block explorer in development and tests, kept in D1 and
// driven from /dev/chain (pay an address, mine a block). It answers through the same Chain port
// as the Esplora adapter, so the order watcher cannot tell the two apart. Never used when an
// explorer URL is configured, and production builds never use it (decision 032).
import { bytesToHex } from "@noble/hashes/utils.js";
import { and, eq, isNull, sql } from "drizzle-orm";
import type { CryptoCoin } from "~/lib/crypto-orders";
import type { Db } from "../platform/db/client.server";
import { simulatedPayments, simulatedTips } from "../platform/db/schema.server";
import { randomBytes } from "../platform/tokens.server";
import type { Chain } from "./chain.server";

/** Where a fresh simulated chain starts, so that block heights look like heights. */
const GENESIS_HEIGHT = 100;

async function tipOf(db: Db, coin: CryptoCoin): Promise<number> {
  const row = await db.select({ height: simulatedTips.height }).from(simulatedTips).where(eq(simulatedTips.coin, coin)).get();
  return row?.height ?? GENESIS_HEIGHT;
}

export function simulatedChain(db: Db, coin: CryptoCoin): Chain {
  return {
    tipHeight: () => tipOf(db, coin),
    paymentsTo: (address) =>
      db
        .select({ txid: simulatedPayments.txid, units: simulatedPayments.units, height: simulatedPayments.height })
        .from(simulatedPayments)
        .where(and(eq(simulatedPayments.coin, coin), eq(simulatedPayments.address, address))),
  };
}

/** Broadcasts a payment of `units` to `address`: it sits in the mempool until a block is mined. */
export async function simulatePayment(db: Db, coin: CryptoCoin, address: string, units: number, now = Date.now()): Promise<string> {
  const txid = bytesToHex(randomBytes(32));
  await db.insert(simulatedPayments).values({ txid, coin, address, units, height: null, createdAt: now });
  return txid;
}

/** Mines a block: the coin's height grows by one and every payment waiting in its mempool is in it. */
export async function mineBlock(db: Db, coin: CryptoCoin): Promise<number> {
  const height = (await tipOf(db, coin)) + 1;
  await db.batch([
    db
      .insert(simulatedTips)
      .values({ coin, height })
      .onConflictDoUpdate({ target: simulatedTips.coin, set: { height: sql`${simulatedTips.height} + 1` } }),
    db
      .update(simulatedPayments)
      .set({ height })
      .where(and(eq(simulatedPayments.coin, coin), isNull(simulatedPayments.height))),
  ]);
  return height;
}

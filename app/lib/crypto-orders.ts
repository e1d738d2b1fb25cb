// Crypto orders as both the browser and the server describe them, and the schemas of their forms:
// the product page's crypto dialog, the tracker, and the admin's fulfilment queue.
import * as v from "valibot";
import { isVariantGid } from "./catalogue";
import type { CryptoStatus } from "./orders";
import { MAX_CODE_LENGTH } from "./codes";

export const CRYPTO_COINS = ["BTC", "LTC"] as const;
export type CryptoCoin = (typeof CRYPTO_COINS)[number];

/** Why an order waits for a person in the admin's queue. */
export const CRYPTO_REVIEW_LABEL = {
  underpaid: "Underpaid, expired",
  overpaid: "Overpaid",
  "paid-late": "Paid after expiry",
} as const;
export type CryptoReview = keyof typeof CRYPTO_REVIEW_LABEL;

/** What a buyer needs to pay an order: shown in the crypto dialog and on the tracker. */
export interface PaymentDetails {
  coin: CryptoCoin;
  walletAddress: string;
  amountCents: number;
  receivedUnits: number;
  /** What is still to pay, in smallest units (null for orders from before on-chain checks). */
  dueUnits: number | null;
  rateCents: number | null;
  rateIsDemo: boolean;
  expiresAt: number | null;
  /** The BIP21 link, while the order takes payments. */
  paymentUri: string | null;
  qr: string | null;
}

/** A crypto order as its buyer sees it (the tracker, the product page's dialog): no internal ids. */
export interface CryptoOrderView extends PaymentDetails {
  orderNumber: string;
  purpose: "key" | "top-up";
  status: CryptoStatus;
  amountUnits: number | null;
  confirmations: number;
  confirmationsNeeded: number;
  paid: boolean;
  /** Paid beyond the quote: by how much, and whether the shop has settled it. */
  overpaid: { units: number; cents: number | null; handled: boolean } | null;
  /** Expired unpaid, and still watched a while for money sent just too late. */
  watchedLate: boolean;
  payments: { txid: string; units: number; confirmed: boolean }[];
  productTitle: string;
  variantTitle: string;
  transactionId: string | null;
  productCode: string | null;
  /** The order renews the buyer's licence (decision 090): paid, it extends that licence instead of handing out a key. */
  renewsLicence: boolean;
  // A complete order's key kept from staff reading someone else's order (see the order's page).
  keyHeldBack: boolean;
  createdAt: number;
  updatedAt: number;
}

/** What POST /api/crypto-orders answers the product page's dialog. */
export type CryptoOrderAnswer = { ok: true; order: CryptoOrderView } | { ok: false; message: string };

/** Smallest units per coin: satoshis per bitcoin, litoshis per litecoin. */
const UNITS_PER_COIN = 100_000_000n;

/** An amount in smallest units as the coin is written: "0.00012", never in exponent notation. */
export function formatCoin(units: number): string {
  const whole = BigInt(units) / UNITS_PER_COIN;
  const fraction = (BigInt(units) % UNITS_PER_COIN).toString().padStart(8, "0").replace(/0+$/, "");
  return fraction ? `${whole}.${fraction}` : `${whole}`;
}

/** The BIP21 link a wallet opens: `bitcoin:<address>?amount=<coins>` (litecoin: for LTC). */
export function paymentUri(coin: CryptoCoin, address: string, units: number): string {
  return `${coin === "BTC" ? "bitcoin" : "litecoin"}:${address}?amount=${formatCoin(units)}`;
}

// A missing field reads as empty, so it gets the same message as a blank one.
const text = () => v.optional(v.string(), "");

export const coinSchema = v.optional(v.picklist(CRYPTO_COINS, "Choose BTC or LTC"), "BTC");

export const orderNumberSchema = v.pipe(
  text(),
  v.trim(),
  v.toUpperCase(),
  v.minLength(1, "Please enter your order number"),
  v.maxLength(64),
);

// The crypto dialog: opening an order for a plan in a coin (choosing the other coin opens, or
// reuses, an order in that coin: an address belongs to one coin).
export const openCryptoOrderSchema = v.object({
  variantId: v.pipe(text(), v.check(isVariantGid, "Choose a plan first")),
  coin: coinSchema,
});

// The tracker: looking an order up (a GET form: `?order=`).
export const orderLookupSchema = v.object({ order: orderNumberSchema });

// The admin's queue: fulfil an order with a typed-in key or the next one in stock, or cancel it.
const orderId = v.pipe(text(), v.uuid("Unknown order"));

export const fulfilCryptoOrderSchema = v.variant("source", [
  v.object({
    intent: v.literal("fulfil"),
    orderId,
    source: v.optional(v.literal("manual"), "manual"),
    code: v.pipe(
      text(),
      v.trim(),
      v.nonEmpty("Please enter a product code"),
      v.maxLength(MAX_CODE_LENGTH, `Codes must be at most ${MAX_CODE_LENGTH} characters`),
    ),
  }),
  v.object({ intent: v.literal("fulfil"), orderId, source: v.literal("stock") }),
]);

/** When the order last changed, as the admin's page showed it: a cancel is taken only on that view (decision 083). */
export const seenSchema = v.pipe(text(), v.regex(/^\d{1,15}$/, "Reload the page and try again"), v.transform(Number));

export const cancelCryptoOrderSchema = v.object({ intent: v.literal("cancel"), orderId, seen: seenSchema });

// An overpaid order was settled, and the admin has dealt with the difference.
export const resolveCryptoOrderSchema = v.object({ intent: v.literal("resolve"), orderId });

export const cryptoQueueSchema = v.variant(
  "intent",
  [fulfilCryptoOrderSchema, cancelCryptoOrderSchema, resolveCryptoOrderSchema],
  "Unknown request",
);

export type OpenCryptoOrderInput = v.InferOutput<typeof openCryptoOrderSchema>;
export type FulfilCryptoOrderInput = v.InferOutput<typeof fulfilCryptoOrderSchema>;

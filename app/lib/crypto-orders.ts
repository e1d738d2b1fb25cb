// Crypto orders as both the browser and the server describe them, and the schemas of their forms:
// the product page's crypto dialog, the tracker, and the admin's fulfilment queue.
import * as v from "valibot";
import { isVariantGid } from "./catalogue";
import { MAX_CODE_LENGTH } from "./schemas/stock";

export const CRYPTO_COINS = ["BTC", "LTC"] as const;
export type CryptoCoin = (typeof CRYPTO_COINS)[number];

export const CRYPTO_STATUS_LABEL = {
  pending: "Pending Payment",
  submitted: "Payment Submitted",
  complete: "Complete",
  cancelled: "Cancelled",
} as const;

export type CryptoStatus = keyof typeof CRYPTO_STATUS_LABEL;

// A missing field reads as empty, so it gets the same message as a blank one.
const text = () => v.optional(v.string(), "");

export const coinSchema = v.optional(v.picklist(CRYPTO_COINS, "Choose BTC or LTC"), "BTC");

/** Bitcoin and Litecoin transaction ids are 32-byte hashes written as 64 hex characters. */
export const transactionIdSchema = v.pipe(
  text(),
  v.trim(),
  v.minLength(1, "Please enter your transaction ID"),
  v.regex(/^[A-Fa-f0-9]{64}$/, "A transaction ID is 64 characters, 0-9 and a-f"),
);

export const orderNumberSchema = v.pipe(text(), v.trim(), v.toUpperCase(), v.minLength(1, "Please enter your order number"), v.maxLength(64));

// The crypto dialog: opening an order for a plan (the default request), and switching its coin.
export const openCryptoOrderSchema = v.object({
  intent: v.optional(v.literal("open"), "open"),
  variantId: v.pipe(text(), v.check(isVariantGid, "Choose a plan first")),
  coin: coinSchema,
});

export const changeCoinSchema = v.object({ intent: v.literal("coin"), orderNumber: orderNumberSchema, coin: coinSchema });

export const cryptoDialogSchema = v.variant("intent", [openCryptoOrderSchema, changeCoinSchema], "Unknown request");

// The tracker: looking an order up (a GET form: `?order=`), and submitting its payment.
export const orderLookupSchema = v.object({ order: orderNumberSchema });

export const submitPaymentSchema = v.object({ orderNumber: orderNumberSchema, transactionId: transactionIdSchema });

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

export const cancelCryptoOrderSchema = v.object({ intent: v.literal("cancel"), orderId });

export const cryptoQueueSchema = v.variant("intent", [fulfilCryptoOrderSchema, cancelCryptoOrderSchema], "Unknown request");

export type OpenCryptoOrderInput = v.InferOutput<typeof openCryptoOrderSchema>;
export type ChangeCoinInput = v.InferOutput<typeof changeCoinSchema>;
export type SubmitPaymentInput = v.InferOutput<typeof submitPaymentSchema>;
export type FulfilCryptoOrderInput = v.InferOutput<typeof fulfilCryptoOrderSchema>;

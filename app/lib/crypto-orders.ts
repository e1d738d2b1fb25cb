// Crypto orders as both the browser and the server describe them.
import * as v from "valibot";

export const CRYPTO_COINS = ["BTC", "LTC"] as const;
export type CryptoCoin = (typeof CRYPTO_COINS)[number];

export const CRYPTO_STATUS_LABEL = {
  pending: "Pending Payment",
  submitted: "Payment Submitted",
  complete: "Complete",
  cancelled: "Cancelled",
} as const;

export type CryptoStatus = keyof typeof CRYPTO_STATUS_LABEL;

export const coinSchema = v.optional(v.picklist(CRYPTO_COINS, "Choose BTC or LTC"), "BTC");

/** Bitcoin and Litecoin transaction ids are 32-byte hashes written as 64 hex characters. */
export const transactionIdSchema = v.pipe(
  v.optional(v.string(), ""),
  v.trim(),
  v.minLength(1, "Please enter your transaction ID"),
  v.regex(/^[A-Fa-f0-9]{64}$/, "A transaction ID is 64 characters, 0-9 and a-f"),
);

export const orderNumberSchema = v.pipe(v.optional(v.string(), ""), v.trim(), v.toUpperCase(), v.minLength(1, "Please enter your order number"), v.maxLength(64));

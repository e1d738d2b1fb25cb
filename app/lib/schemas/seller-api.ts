// The seller API's request bodies and query strings (decision 097), checked on the server and
// described by the same names in the OpenAPI document.
import * as v from "valibot";
import { KEY_TYPES, type KeyType, MAX_KEYS_PER_ORDER } from "./reseller";

/** At most this many keys or ledger entries a page. */
export const MAX_PAGE_SIZE = 100;
export const DEFAULT_PAGE_SIZE = 50;

/** Keys for a plan, paid from the balance: one to a hundred in one request (a bot sells one at a time). */
export const createKeysSchema = v.object({
  plan: v.picklist(Object.keys(KEY_TYPES) as KeyType[], "plan must be weekly or monthly"),
  quantity: v.pipe(
    v.number("quantity must be a whole number"),
    v.integer("quantity must be a whole number"),
    v.minValue(1, "quantity must be at least 1"),
    v.maxValue(MAX_KEYS_PER_ORDER, `quantity must be at most ${MAX_KEYS_PER_ORDER}`),
  ),
});
export type CreateKeysInput = v.InferOutput<typeof createKeysSchema>;

/** A page: the cursor the previous page handed out (opaque to callers) and how many to return. */
export const pageSchema = v.object({
  cursor: v.optional(v.pipe(v.string(), v.regex(/^\d{1,15}$/, "cursor is not one this API handed out"), v.transform(Number))),
  limit: v.optional(
    v.pipe(
      v.string(),
      v.regex(/^\d{1,3}$/, `limit must be 1 to ${MAX_PAGE_SIZE}`),
      v.transform(Number),
      v.minValue(1, `limit must be 1 to ${MAX_PAGE_SIZE}`),
      v.maxValue(MAX_PAGE_SIZE, `limit must be 1 to ${MAX_PAGE_SIZE}`),
    ),
    String(DEFAULT_PAGE_SIZE),
  ),
});
export type PageInput = v.InferOutput<typeof pageSchema>;

/** An Idempotency-Key: any printable text up to 255 characters (a UUID is usual). */
export const idempotencyKeySchema = v.pipe(
  v.string("An Idempotency-Key header is required"),
  v.trim(),
  v.nonEmpty("An Idempotency-Key header is required"),
  v.maxLength(255, "An Idempotency-Key is at most 255 characters"),
  v.regex(/^[\x21-\x7e]+$/, "An Idempotency-Key is printable ASCII without spaces"),
);

// The admin's status update form, checked in the browser and again on the server. A post may set
// one product's status; a status needs the product it is for.
import * as v from "valibot";
import { PRODUCT_STATUSES } from "../status";

export const STATUS_TYPES = ["update", "maintenance", "incident"] as const;
const FILL_ALL = "Please fill in all fields";
export const CHOOSE_PRODUCT = "Choose the product whose status changes";

export const statusUpdateSchema = v.pipe(
  v.object({
    title: v.pipe(v.optional(v.string(), ""), v.trim(), v.minLength(1, FILL_ALL), v.maxLength(120, "Title must be at most 120 characters")),
    description: v.pipe(
      v.optional(v.string(), ""),
      v.trim(),
      v.minLength(1, FILL_ALL),
      v.maxLength(2000, "Description must be at most 2000 characters"),
    ),
    type: v.optional(v.picklist(STATUS_TYPES, "Choose update, maintenance or incident"), "update"),
    // A Storefront product id, checked against the catalogue on the server; empty: no product.
    product: v.pipe(v.optional(v.string(), ""), v.maxLength(200, "Unknown product")),
    // Empty: the product's status stays as it is.
    productStatus: v.optional(v.union([v.literal(""), v.picklist(PRODUCT_STATUSES)], "Choose Undetected, Updating, Detected or Down"), ""),
  }),
  v.forward(
    v.check((input) => input.productStatus === "" || input.product !== "", CHOOSE_PRODUCT),
    ["product"],
  ),
);

export type StatusUpdateInput = v.InferOutput<typeof statusUpdateSchema>;

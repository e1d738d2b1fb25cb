// The admin's status update form, checked in the browser and again on the server.
import * as v from "valibot";

export const STATUS_TYPES = ["update", "maintenance", "incident"] as const;
const FILL_ALL = "Please fill in all fields";

export const statusUpdateSchema = v.object({
  title: v.pipe(v.optional(v.string(), ""), v.trim(), v.minLength(1, FILL_ALL), v.maxLength(120, "Title must be at most 120 characters")),
  description: v.pipe(
    v.optional(v.string(), ""),
    v.trim(),
    v.minLength(1, FILL_ALL),
    v.maxLength(2000, "Description must be at most 2000 characters"),
  ),
  type: v.optional(v.picklist(STATUS_TYPES, "Choose update, maintenance or incident"), "update"),
});

export type StatusUpdateInput = v.InferOutput<typeof statusUpdateSchema>;

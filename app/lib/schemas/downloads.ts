// The admin's upload form: the file and its few text fields, checked in the browser before the
// file is sent and again on the server.
import * as v from "valibot";

export const MAX_UPLOAD_BYTES = 90 * 1024 * 1024;
export const UPLOAD_TOO_LARGE = "Files can be at most 90 MB";
const CHOOSE_FILE = "Choose a file to upload";

export const uploadSchema = v.object({
  // A file input left empty sends an unnamed, empty file; no file at all is read the same way.
  file: v.pipe(
    v.optional(v.file(CHOOSE_FILE), () => new File([], "")),
    v.minSize(1, CHOOSE_FILE),
    v.maxSize(MAX_UPLOAD_BYTES, UPLOAD_TOO_LARGE),
  ),
  version: v.pipe(v.optional(v.string(), ""), v.trim(), v.minLength(1, "Enter a version"), v.maxLength(40, "Versions are at most 40 characters")),
  description: v.pipe(v.optional(v.string(), ""), v.trim(), v.maxLength(500, "Descriptions are at most 500 characters")),
  // An unticked checkbox sends nothing.
  requiresSubscription: v.pipe(v.optional(v.string(), ""), v.transform((checked) => checked === "on")),
});

export type UploadInput = v.InferOutput<typeof uploadSchema>;

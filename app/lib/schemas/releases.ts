// Releases: the staff's upload form (started, sent in parts, finished), publishing and yanking, and
// the licence API's request for the newest release. The forms' schemas run in the browser too.
import * as v from "valibot";
import { RELEASE_CHANNELS } from "../releases";
import { isSemver } from "../semver";
import { validateLicenceSchema } from "./licences";

/** The largest release file, and the size of each part the browser sends (R2 wants at least 5 MiB but the last). */
export const MAX_RELEASE_BYTES = 2 * 1024 ** 3;
export const PART_BYTES = 8 * 1024 ** 2;
export const MAX_PARTS = Math.ceil(MAX_RELEASE_BYTES / PART_BYTES);

const channel = v.picklist(RELEASE_CHANNELS, "Choose stable or beta");

export const startReleaseSchema = v.object({
  // A product of the catalogue, by title (as licences name theirs); the server checks it is one.
  product: v.pipe(v.optional(v.string(), ""), v.trim(), v.minLength(1, "Choose a product"), v.maxLength(200, "Choose a product")),
  version: v.pipe(v.optional(v.string(), ""), v.trim(), v.check(isSemver, "Enter a semantic version such as 1.4.0 or 2.0.0-beta.1")),
  channel,
  notes: v.pipe(v.optional(v.string(), ""), v.trim(), v.maxLength(20_000, "Release notes are at most 20,000 characters")),
  // Blank: the release needs no entitlement beyond its channel's.
  entitlement: v.pipe(
    v.optional(v.string(), ""),
    v.trim(),
    v.regex(/^([a-z][a-z0-9-]{0,39})?$/, "Choose an entitlement"),
    v.transform((name) => name || null),
  ),
  fileName: v.pipe(
    v.optional(v.string(), ""),
    v.trim(),
    v.minLength(1, "Choose a file to upload"),
    v.maxLength(200, "File names are at most 200 characters"),
  ),
  size: v.pipe(
    v.union([v.string(), v.number()], "Choose a file to upload"),
    v.transform(Number),
    v.integer("Choose a file to upload"),
    v.minValue(1, "Choose a file to upload"),
    v.maxValue(MAX_RELEASE_BYTES, "Release files can be at most 2 GB"),
  ),
  contentType: v.pipe(v.optional(v.string(), ""), v.trim(), v.maxLength(100), v.regex(/^([\w.+-]+\/[\w.+-]+)?$/, "Unknown file type")),
});
export type StartReleaseInput = v.InferOutput<typeof startReleaseSchema>;

/** The Releases page's staff actions: start an upload; publish, yank or discard a release. */
export const startReleaseActionSchema = v.object({ intent: v.literal("start"), ...startReleaseSchema.entries });
export const changeReleaseSchema = v.object({
  intent: v.picklist(["publish", "yank", "discard"]),
  releaseId: v.pipe(v.optional(v.string(), ""), v.uuid("No such release")),
});

/** The program's question: the same fields as a validation, and the channel it follows. */
export const latestReleaseSchema = v.object({
  ...validateLicenceSchema.entries,
  channel: v.optional(v.picklist(RELEASE_CHANNELS, "channel must be stable or beta"), "stable"),
});

// The quick jump's query (GET /dashboard/search?q=), checked in the browser and on the server. The
// longest thing it finds is a key (at most 200 characters); control characters name nothing.
import * as v from "valibot";
import { MAX_CODE_LENGTH } from "../codes";

export const quickJumpSchema = v.object({
  q: v.pipe(
    v.optional(v.string(), ""),
    v.trim(),
    v.maxLength(MAX_CODE_LENGTH, `Search for at most ${MAX_CODE_LENGTH} characters`),
    // eslint-disable-next-line no-control-regex -- control characters are what it refuses
    v.regex(/^[^\u0000-\u001f\u007f]*$/, "Search for letters, digits and signs only"),
  ),
  // Asked by the box as it is typed in: the results as a list, never a jump (a jump would navigate).
  list: v.optional(v.literal("1", "Unknown option")),
});

// The licence floor with its two rate-limit calls answered by a no-op (see unlimited.js).
import floor from "./licence-floor.js";
import { unlimited } from "./unlimited.js";

export default unlimited(floor, ["CLIENT_LIMIT", "KEY_LIMIT"]);
